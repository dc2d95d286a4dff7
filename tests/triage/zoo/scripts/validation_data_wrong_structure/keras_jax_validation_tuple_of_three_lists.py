"""Keras 3 on JAX: validation_data passed as a list [x, y] of different lengths.

label: input_pipeline
family: validation_data_wrong_structure
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(np.ones((16, 4)), np.ones((16, 1)), validation_data=(np.ones((6, 4)), np.ones((5, 1))), epochs=1)
