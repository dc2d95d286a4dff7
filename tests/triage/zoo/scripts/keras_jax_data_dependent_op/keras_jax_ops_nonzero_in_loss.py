"""Keras 3 on JAX: a custom loss gathers positive examples with keras.ops.nonzero inside the compiled train step.

label: dynamic_shape
family: keras_jax_data_dependent_op
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np


def positive_only_mse(y_true, y_pred):
    idx = keras.ops.nonzero(y_true[:, 0] > 0)[0]
    return keras.ops.mean(keras.ops.square(keras.ops.take(y_true, idx, 0) - keras.ops.take(y_pred, idx, 0)))


model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("sgd", positive_only_mse)
model.fit(np.ones((8, 3)), np.ones((8, 1)), epochs=1, verbose=0)
