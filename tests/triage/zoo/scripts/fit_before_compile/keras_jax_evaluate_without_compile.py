"""Keras 3 on JAX: evaluate called on a freshly loaded-from-config model that was not compiled.

label: unknown
family: fit_before_compile
source: keras-team/keras
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
clone = keras.models.clone_model(model)
print(clone.evaluate(np.ones((8, 4)), np.ones((8, 1))))
