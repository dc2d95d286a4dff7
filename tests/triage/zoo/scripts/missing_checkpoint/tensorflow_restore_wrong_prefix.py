"""tf.train.Checkpoint.restore given a checkpoint prefix that does not exist (wrong run id).

label: checkpoint
family: missing_checkpoint
"""

import os
import tempfile

import tensorflow as tf

run_dir = tempfile.mkdtemp()
model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
tf.train.Checkpoint(model=model).save(os.path.join(run_dir, "run-17", "ckpt"))

status = tf.train.Checkpoint(model=model).restore(os.path.join(run_dir, "run-71", "ckpt-1"))
status.assert_existing_objects_matched()
