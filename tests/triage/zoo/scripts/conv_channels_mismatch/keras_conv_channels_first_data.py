"""A channels_last Keras Conv2D model given channels-first arrays from a PyTorch loader.

label: compile_error
family: conv_channels_mismatch
source: google/flax
"""

import keras
import numpy as np

model = keras.Sequential(
    [
        keras.Input((32, 32, 3)),
        keras.layers.Conv2D(8, 3),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(1),
    ]
)
model.compile("adam", "mse")
model.fit(np.ones((4, 3, 32, 32)), np.ones((4, 1)), epochs=1, verbose=0)
