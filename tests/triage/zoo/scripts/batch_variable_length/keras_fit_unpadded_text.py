"""Keras text classifier fed a dataset of variable-length token ids batched without padding.

label: input_pipeline
family: batch_variable_length
"""

import keras
import numpy as np
import tensorflow as tf

token_lists = [np.random.randint(1, 100, size=n) for n in (5, 9, 3, 7, 6, 4, 8, 2)]
labels = np.random.randint(0, 2, size=len(token_lists))
ds = tf.data.Dataset.from_generator(
    lambda: zip(token_lists, labels),
    output_signature=(tf.TensorSpec([None], tf.int64), tf.TensorSpec([], tf.int64)),
).batch(4)

model = keras.Sequential(
    [
        keras.Input(shape=(None,), dtype="int64"),
        keras.layers.Embedding(100, 8),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(1, activation="sigmoid"),
    ]
)
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1)
