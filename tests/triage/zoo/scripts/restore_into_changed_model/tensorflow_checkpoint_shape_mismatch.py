"""tf.train.Checkpoint restored after the hidden size was changed from 16 to 32.

label: checkpoint
family: restore_into_changed_model
"""

import os
import tempfile

import tensorflow as tf


def build(hidden):
    return tf.keras.Sequential(
        [tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(hidden), tf.keras.layers.Dense(1)]
    )


ckpt_dir = tempfile.mkdtemp()
path = tf.train.Checkpoint(model=build(16)).save(os.path.join(ckpt_dir, "ckpt"))

model = build(32)  # bumped the width for the next run
tf.train.Checkpoint(model=model).restore(path)
print(model.layers[0].kernel.shape)
