"""Checkpoint saved with an Adam optimizer restored into a run that switched to SGD; assert_consumed fails.

label: checkpoint
family: optimizer_state_mismatch
"""

import os
import tempfile

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
adam = tf.keras.optimizers.Adam()
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(tf.ones([2, 3])))
adam.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
path = tf.train.Checkpoint(model=model, optimizer=adam).save(os.path.join(tempfile.mkdtemp(), "ckpt"))

sgd = tf.keras.optimizers.SGD(0.01)
sgd.build(model.trainable_variables)
tf.train.Checkpoint(model=model, optimizer=sgd).restore(path).assert_consumed()
