"""Keras 3 on JAX fit with string class names as targets.

label: unsupported_dtype
family: string_array_to_jax
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(np.ones((4, 4)), np.array(["a", "b", "c", "a"]), epochs=1, verbose=0)
