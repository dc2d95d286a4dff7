"""Keras MultiHeadAttention trained on 65536-step sequences without chunking.

label: oom
family: attention_quadratic_seq_len
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # keep the host safe: fail fast

import keras
import numpy as np

SEQ = 65536

inputs = keras.Input(shape=(SEQ, 32))
x = keras.layers.MultiHeadAttention(num_heads=4, key_dim=16)(inputs, inputs)
x = keras.layers.GlobalAveragePooling1D()(x)
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="mse")

x_train = np.zeros((2, SEQ, 32), "float32")
y_train = np.zeros((2, 1), "float32")
model.fit(x_train, y_train, batch_size=2, epochs=1)
