"""Keras ModelCheckpoint writes into /sys (a read-only mount in the container).

label: checkpoint
family: unwritable_checkpoint_dir
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
cb = keras.callbacks.ModelCheckpoint("/sys/ckpt/epoch-{epoch:02d}.keras")
model.fit(np.ones((16, 4)), np.zeros((16, 1)), epochs=1, callbacks=[cb], verbose=2)
