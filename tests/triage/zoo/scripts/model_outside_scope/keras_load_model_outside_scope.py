"""Pretrained model loaded with keras.models.load_model before entering the scope, fine-tuned inside it.

label: strategy_scope
family: model_outside_scope
"""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

path = os.path.join(tempfile.mkdtemp(), "pretrained.keras")
keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(4), keras.layers.Dense(1)]).save(path)

model = keras.models.load_model(path)
with strategy.scope():
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
model.fit(np.ones((32, 8), "float32"), np.zeros((32, 1), "float32"), batch_size=8, epochs=1)
