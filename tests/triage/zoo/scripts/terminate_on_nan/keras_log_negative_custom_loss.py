"""Custom MSLE-style loss takes log of (possibly negative) predictions; TerminateOnNaN stops the fit.

label: nan_inf
family: terminate_on_nan
why: TerminateOnNaN stops training and Keras returns normally; the script's own check exits 1
"""

import sys

import keras
import numpy as np
from keras import ops


def msle(y_true, y_pred):
    return ops.mean((ops.log(y_pred) - ops.log(y_true + 1.0)) ** 2)  # y_pred can be < 0


model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])  # linear output
model.compile("adam", msle)
x = np.random.randn(128, 4).astype("float32")
y = np.abs(np.random.randn(128, 1)).astype("float32")
history = model.fit(x, y, batch_size=16, epochs=2, callbacks=[keras.callbacks.TerminateOnNaN()], verbose=2)
if model.stop_training:
    sys.exit("training stopped: loss became NaN")
