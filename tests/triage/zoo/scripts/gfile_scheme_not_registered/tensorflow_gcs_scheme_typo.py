"""Bucket written as gcs://bucket/... (not gs://) in the input path.

label: local_filesystem
family: gfile_scheme_not_registered
"""

import tensorflow as tf

TRAIN_PATTERN = "gcs://my-tpu-bucket/data/train-*"
files = tf.data.Dataset.list_files(TRAIN_PATTERN, shuffle=False)
for f in files.take(2):
    print(f)
