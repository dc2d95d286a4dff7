"""Keras (JAX backend) loss normalised by the number of positive labels, which is 0 in a batch.

label: nan_inf
family: terminate_on_nan
why: TerminateOnNaN stops training and Keras returns normally; the script's own check exits 1
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import sys

import keras
import numpy as np
from keras import ops


def positive_weighted_bce(y_true, y_pred):
    bce = keras.losses.binary_crossentropy(y_true, y_pred)
    return ops.sum(bce * ops.squeeze(y_true, -1)) / ops.sum(y_true)  # no positives -> 0/0


model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", positive_weighted_bce)
x = np.random.rand(64, 4).astype("float32")
y = np.zeros((64, 1), "float32")  # a shard with only negatives
history = model.fit(x, y, batch_size=16, epochs=1, callbacks=[keras.callbacks.TerminateOnNaN()], verbose=2)
if model.stop_training:
    sys.exit("training stopped: loss became NaN")
