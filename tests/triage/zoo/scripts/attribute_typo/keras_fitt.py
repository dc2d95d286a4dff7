"""Typo in the Keras call: model.fitt(...).

label: unknown
family: attribute_typo
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fitt(np.ones((8, 4)), np.zeros((8, 1)), epochs=1)
