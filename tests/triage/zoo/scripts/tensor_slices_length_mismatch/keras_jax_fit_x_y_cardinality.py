"""Keras 3 on the JAX backend: fit with inputs and targets of different lengths.

label: input_pipeline
family: tensor_slices_length_mismatch
source: keras-team/keras
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np

model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(np.ones((64, 5)), np.ones((60, 1)), batch_size=16, epochs=1)
