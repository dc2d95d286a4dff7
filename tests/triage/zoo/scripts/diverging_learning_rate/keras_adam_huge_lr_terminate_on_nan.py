"""Adam with learning_rate=1e6; TerminateOnNaN stops the fit.

label: nan_inf
family: diverging_learning_rate
"""

import keras
import numpy as np

model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)]
)
model.compile(keras.optimizers.SGD(1e6), "mse")
model.fit(
    np.random.rand(256, 4),
    np.random.rand(256, 1) * 100,
    epochs=3,
    batch_size=8,
    callbacks=[keras.callbacks.TerminateOnNaN()],
)
if model.stop_training:
    raise SystemExit("training stopped: loss was NaN")
