"""batch_size read from an environment variable is passed to fit as a string.

label: unknown
family: hyperparameter_wrong_type
"""

import os

import keras
import numpy as np

os.environ.setdefault("BATCH_SIZE", "32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(np.ones((64, 4)), np.ones((64, 1)), batch_size=os.environ["BATCH_SIZE"], epochs=1)
