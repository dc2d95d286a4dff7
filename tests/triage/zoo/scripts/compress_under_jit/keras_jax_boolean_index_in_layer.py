"""Keras 3 on JAX: a custom layer drops masked timesteps with boolean indexing inside the compiled train step.

label: dynamic_shape
family: compress_under_jit
source: jax-ml/jax
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np


class DropPadding(keras.layers.Layer):
    def call(self, x):
        keep = keras.ops.any(x != 0, axis=-1)
        return keras.ops.mean(x[keep], axis=0, keepdims=True)


model = keras.Sequential([keras.Input((5, 3)), DropPadding(), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(np.ones((4, 5, 3)), np.ones((4, 1)), batch_size=4, epochs=1)
