"""Checkpoint attribute renamed (model -> net) between save and restore; assert_consumed() catches it.

label: checkpoint
family: restore_into_changed_model
"""

import os
import tempfile

import tensorflow as tf

layer = tf.keras.layers.Dense(3)
layer.build((None, 2))
step = tf.Variable(10, dtype=tf.int64)
path = tf.train.Checkpoint(model=layer, step=step).save(os.path.join(tempfile.mkdtemp(), "ckpt"))

new_layer = tf.keras.layers.Dense(3)
new_layer.build((None, 2))
status = tf.train.Checkpoint(net=new_layer, step=tf.Variable(0, dtype=tf.int64)).restore(path)
status.assert_consumed()
