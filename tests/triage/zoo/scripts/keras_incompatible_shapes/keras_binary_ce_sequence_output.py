"""Sequence model returns per-timestep logits (N, T, 1) but labels are per-sequence (N, 1) under mse.

label: compile_error
family: keras_incompatible_shapes
"""

import keras
import numpy as np

inputs = keras.Input(shape=(20, 8))
x = keras.layers.LSTM(16, return_sequences=True)(inputs)
outputs = keras.layers.Dense(3)(x)
model = keras.Model(inputs, outputs)
model.compile("adam", "mse")
model.fit(np.random.rand(16, 20, 8).astype("float32"), np.random.rand(16, 2).astype("float32"), epochs=1)
