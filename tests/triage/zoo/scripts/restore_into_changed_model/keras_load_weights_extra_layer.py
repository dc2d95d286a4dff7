"""Weights saved from a 2-layer model loaded into the 3-layer version of the model.

label: checkpoint
family: restore_into_changed_model
"""

import os
import tempfile

import keras

path = os.path.join(tempfile.mkdtemp(), "model.weights.h5")
old = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(16), keras.layers.Dense(1)])
old.save_weights(path)

new = keras.Sequential(
    [
        keras.Input(shape=(8,)),
        keras.layers.Dense(16),
        keras.layers.Dropout(0.1),
        keras.layers.Dense(16),
        keras.layers.Dense(1),
    ]
)
new.load_weights(path)
