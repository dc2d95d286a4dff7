"""CSV label column parsed as a string default ('') and fed as the target of a Keras model.

label: unsupported_dtype
family: string_labels_into_loss
"""

import os
import tempfile

import keras
import tensorflow as tf

path = os.path.join(tempfile.mkdtemp(), "train.csv")
with open(path, "w") as f:
    for i in range(20):
        f.write(f"{i * 0.1},{i * 0.2},{i % 2}\n")

ds = tf.data.experimental.CsvDataset(path, record_defaults=[0.0, 0.0, ""])  # label read as a string
ds = ds.map(lambda a, b, label: (tf.stack([a, b]), label)).batch(4)

model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1)
