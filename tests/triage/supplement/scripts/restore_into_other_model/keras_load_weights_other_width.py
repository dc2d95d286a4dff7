"""Weights saved from a 64-unit model are loaded into a 32-unit one.

label: checkpoint
family: restore_into_other_model
"""

import keras

a = keras.Sequential([keras.Input((16,)), keras.layers.Dense(64), keras.layers.Dense(1)])
a.save_weights("model.weights.h5")
b = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32), keras.layers.Dense(1)])
b.load_weights("model.weights.h5")
