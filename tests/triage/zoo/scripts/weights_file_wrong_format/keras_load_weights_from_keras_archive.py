"""load_weights is given a whole-model .keras archive renamed to .weights.h5.

label: checkpoint
family: weights_file_wrong_format
"""

import shutil

import keras

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.save("model.keras")
shutil.copy("model.keras", "model.weights.h5")
model.load_weights("model.weights.h5")
