"""A weights file cut short by a killed save is loaded on resume.

label: checkpoint
family: missing_checkpoint
"""

import keras

with open("resume.weights.h5", "wb") as f:
    f.write(b"\x89HDF\r\n\x1a\n" + b"\x00" * 40)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
model.load_weights("resume.weights.h5")
