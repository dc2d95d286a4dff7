"""Keras Reshape layer target (7, 7, 64) after a Dense of 7*7*32 units in a generator model.

label: compile_error
family: reshape_wrong_size_in_jit
"""

import keras

model = keras.Sequential(
    [
        keras.Input(shape=(100,)),
        keras.layers.Dense(7 * 7 * 32, activation="relu"),
        keras.layers.Reshape((7, 7, 64)),
        keras.layers.Conv2DTranspose(32, 3, strides=2, padding="same"),
    ]
)
model.summary()
