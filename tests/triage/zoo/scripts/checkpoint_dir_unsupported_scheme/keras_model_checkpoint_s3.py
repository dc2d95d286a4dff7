"""Keras ModelCheckpoint callback with an s3:// filepath.

label: local_filesystem
family: checkpoint_dir_unsupported_scheme
why: the checkpoint code is fine; the storage scheme is what the user must change
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
cb = keras.callbacks.ModelCheckpoint("s3://ml-runs/exp42/ckpt-{epoch:02d}.keras")
model.fit(np.ones((16, 4)), np.zeros((16, 1)), epochs=1, callbacks=[cb])
