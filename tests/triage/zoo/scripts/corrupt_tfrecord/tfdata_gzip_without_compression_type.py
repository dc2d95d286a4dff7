"""GZIP-compressed TFRecords read without compression_type='GZIP'.

label: input_pipeline
family: corrupt_tfrecord
"""

import os
import tempfile

import tensorflow as tf

path = os.path.join(tempfile.mkdtemp(), "eval.tfrecord.gz")
with tf.io.TFRecordWriter(path, options="GZIP") as w:
    for i in range(10):
        w.write(f"record-{i}".encode())

for rec in tf.data.TFRecordDataset(path):
    print(rec)
