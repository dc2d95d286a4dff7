"""Model created under one MirroredStrategy is trained under a second strategy object.

label: strategy_scope
family: two_strategies
"""

import keras
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

with strategy.scope():
    model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(1)])

# later, in the training module
train_strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with train_strategy.scope():
    model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((32, 8), "float32"), np.zeros((32, 1), "float32"), batch_size=8, epochs=1)
