"""A TFRecord file with a flipped byte (bad disk / partial overwrite) fails its CRC check.

label: input_pipeline
family: corrupt_tfrecord
"""

import os
import tempfile

import tensorflow as tf

path = os.path.join(tempfile.mkdtemp(), "shard.tfrecord")
with tf.io.TFRecordWriter(path) as w:
    for i in range(50):
        w.write(bytes([i % 256]) * 200)
with open(path, "r+b") as f:
    f.seek(2000)
    b = f.read(1)
    f.seek(2000)
    f.write(bytes([b[0] ^ 0xFF]))

n = 0
for rec in tf.data.TFRecordDataset(path):
    n += 1
print(n, "records")
