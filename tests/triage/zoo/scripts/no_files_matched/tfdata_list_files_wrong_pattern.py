"""Shard pattern has the wrong split name ('training-*' but files are 'train-*').

label: input_pipeline
family: no_files_matched
"""

import os
import tempfile

import tensorflow as tf

root = tempfile.mkdtemp()
for i in range(2):
    with tf.io.TFRecordWriter(os.path.join(root, f"train-{i:05d}.tfrecord")) as w:
        w.write(b"x")

files = tf.data.Dataset.list_files(os.path.join(root, "training-*.tfrecord"))
ds = files.interleave(tf.data.TFRecordDataset, cycle_length=2)
print(sum(1 for _ in ds))
