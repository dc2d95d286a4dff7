"""User-side sanity check `assert train_files` fails because the glob found nothing.

label: unknown
family: user_assert
"""

import glob

import tensorflow as tf

train_files = sorted(glob.glob("data/train/*.tfrecord"))
assert train_files, "no training files found"
ds = tf.data.TFRecordDataset(train_files)
