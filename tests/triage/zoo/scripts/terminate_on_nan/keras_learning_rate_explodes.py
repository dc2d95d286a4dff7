"""Keras SGD with learning_rate=1e12 and TerminateOnNaN; the script exits 1 when training was stopped.

label: nan_inf
family: terminate_on_nan
why: TerminateOnNaN stops training and Keras returns normally; the script's own check exits 1
"""

import sys

import keras
import numpy as np

x = np.random.rand(256, 8).astype("float32")
y = (x.sum(axis=1, keepdims=True) * 3).astype("float32")

model = keras.Sequential(
    [keras.Input(shape=(8,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)]
)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=1e12), loss="mse")
history = model.fit(x, y, batch_size=16, epochs=3, callbacks=[keras.callbacks.TerminateOnNaN()], verbose=2)
if model.stop_training or not np.isfinite(history.history["loss"][-1]):
    sys.exit("training stopped: loss became NaN")
