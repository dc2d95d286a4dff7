"""Keras model built outside strategy.scope(), then compiled and fitted inside it.

label: strategy_scope
family: model_outside_scope
"""

import keras
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

model = keras.Sequential(
    [keras.Input(shape=(8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)]
)
with strategy.scope():
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
model.fit(np.ones((64, 8), "float32"), np.zeros((64, 1), "float32"), batch_size=16, epochs=1)
