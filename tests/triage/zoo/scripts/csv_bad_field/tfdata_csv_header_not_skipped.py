"""CsvDataset reads a file with a header row but header=False (default).

label: input_pipeline
family: csv_bad_field
"""

import os
import tempfile

import tensorflow as tf

path = os.path.join(tempfile.mkdtemp(), "train.csv")
with open(path, "w") as f:
    f.write("age,income,label\n")
    for i in range(10):
        f.write(f"{20 + i},{1000.0 * i},{i % 2}\n")

ds = tf.data.experimental.CsvDataset(path, [tf.float32, tf.float32, tf.int32]).batch(4)
for age, income, label in ds:
    print(age.numpy())
