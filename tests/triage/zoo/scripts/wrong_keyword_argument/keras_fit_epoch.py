"""model.fit(..., epoch=3) instead of epochs=3.

label: unknown
family: wrong_keyword_argument
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(np.ones((16, 4)), np.zeros((16, 1)), batch_size=8, epoch=3)
