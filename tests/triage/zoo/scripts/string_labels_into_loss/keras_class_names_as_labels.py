"""Class names ('cat', 'dog') passed as y to fit with sparse_categorical_crossentropy.

label: unsupported_dtype
family: string_labels_into_loss
"""

import keras
import numpy as np

x = np.random.rand(6, 8).astype("float32")
y = np.array(["cat", "dog", "dog", "cat", "bird", "cat"])

model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1)
