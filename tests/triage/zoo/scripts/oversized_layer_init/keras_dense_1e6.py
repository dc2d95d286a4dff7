"""Keras model with a 1e6 x 1e6 Dense layer (units taken from the vocabulary size by mistake).

label: oom
family: oversized_layer_init
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # keep the host safe: fail fast

import keras

VOCAB = 1_000_000

model = keras.Sequential(
    [
        keras.Input(shape=(VOCAB,)),
        keras.layers.Dense(VOCAB, activation="relu"),  # should have been 512
        keras.layers.Dense(2, activation="softmax"),
    ]
)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.summary()
