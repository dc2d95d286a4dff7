"""Embedding sized for a 2**31 hash space instead of the hashed bucket count.

label: oom
family: embedding_table_too_large
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # keep the host safe: fail fast

import keras
import numpy as np

NUM_BUCKETS = 2**31 - 1  # hash range, not the number of buckets we actually use

inputs = keras.Input(shape=(20,), dtype="int32")
x = keras.layers.Embedding(NUM_BUCKETS, 64)(inputs)
x = keras.layers.GlobalAveragePooling1D()(x)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
model.compile("adam", "binary_crossentropy")
model.fit(np.random.randint(0, 1000, (64, 20)), np.random.randint(0, 2, (64, 1)), epochs=1)
