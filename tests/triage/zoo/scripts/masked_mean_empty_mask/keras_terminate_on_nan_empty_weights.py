"""Keras fit with sample weights that are all zero in the first batch; the weighted loss is NaN and TerminateOnNaN stops.

label: nan_inf
family: masked_mean_empty_mask
"""

import keras
import numpy as np


def weighted_mse(y_true, y_pred):
    w = y_true[:, 1:]
    return keras.ops.sum(keras.ops.square(y_true[:, :1] - y_pred) * w) / keras.ops.sum(w)


model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("sgd", weighted_mse)
y = np.concatenate([np.ones((8, 1)), np.zeros((8, 1))], axis=1)
model.fit(np.ones((8, 3)), y, batch_size=8, epochs=1, callbacks=[keras.callbacks.TerminateOnNaN()])
if model.stop_training:
    raise SystemExit("training stopped: loss was NaN")
