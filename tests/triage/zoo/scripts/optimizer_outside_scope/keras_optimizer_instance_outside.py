"""Optimizer instance created at module level (outside the scope), model built and compiled inside.

label: strategy_scope
family: optimizer_outside_scope
"""

import keras
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

optimizer = keras.optimizers.Adam(learning_rate=3e-4)  # shared config object, made up front

with strategy.scope():
    model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(1)])
    model.compile(optimizer=optimizer, loss="mse")
model.fit(np.ones((64, 8), "float32"), np.zeros((64, 1), "float32"), batch_size=16, epochs=1)
