"""Keras 3 on JAX: a layer uses keras.ops.where(condition) to find valid positions inside fit.

label: dynamic_shape
family: keras_jax_data_dependent_op
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np


class FirstValid(keras.layers.Layer):
    def call(self, x):
        rows = keras.ops.where(keras.ops.sum(x, axis=-1) > 0)[0]
        return keras.ops.take(x, rows, axis=0)


model = keras.Sequential([keras.Input((4,)), FirstValid(), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=1, verbose=0)
