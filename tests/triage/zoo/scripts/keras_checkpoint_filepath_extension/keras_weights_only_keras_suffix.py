"""ModelCheckpoint(save_weights_only=True) given a filepath ending in .keras.

label: checkpoint
family: keras_checkpoint_filepath_extension
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
cb = keras.callbacks.ModelCheckpoint("checkpoints/model-{epoch:02d}.keras", save_weights_only=True)
model.fit(np.ones((16, 4)), np.zeros((16, 1)), epochs=2, callbacks=[cb])
