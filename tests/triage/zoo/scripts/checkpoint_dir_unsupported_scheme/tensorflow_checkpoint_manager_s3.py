"""tf.train.CheckpointManager writes to an s3:// model_dir that this TF cannot open.

label: local_filesystem
family: checkpoint_dir_unsupported_scheme
why: the checkpoint code is fine; the storage scheme is what the user must change
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])
ckpt = tf.train.Checkpoint(model=model, step=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, "s3://ml-runs/exp42/checkpoints", max_to_keep=3)
ckpt.step.assign_add(1)
print(manager.save())
