"""Evaluation loads 'best_model.keras' but training saved 'best-model.keras'.

label: checkpoint
family: missing_checkpoint
"""

import os
import tempfile

import keras
import numpy as np

run_dir = tempfile.mkdtemp()
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(
    np.ones((16, 4)),
    np.zeros((16, 1)),
    epochs=1,
    verbose=2,
    callbacks=[keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "best-model.keras"))],
)

best = keras.models.load_model(os.path.join(run_dir, "best_model.keras"))
best.summary()
