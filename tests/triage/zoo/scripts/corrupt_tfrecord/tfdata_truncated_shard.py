"""A TFRecord shard cut short by an interrupted copy is read by the training pipeline.

label: input_pipeline
family: corrupt_tfrecord
"""

import os
import tempfile

import tensorflow as tf

path = os.path.join(tempfile.mkdtemp(), "train-00000-of-00001.tfrecord")
with tf.io.TFRecordWriter(path) as w:
    for i in range(100):
        w.write(tf.io.serialize_tensor(tf.fill([64], float(i))).numpy())
size = os.path.getsize(path)
with open(path, "r+b") as f:  # the copy stopped early
    f.truncate(size - 37)

ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_tensor(r, tf.float32)).batch(10)
for i, batch in enumerate(ds):
    print(i, batch.shape)
