"""Training data path on S3 checked with tf.io.gfile, but no S3 file system is registered in this TF.

label: local_filesystem
family: gfile_scheme_not_registered
"""

import tensorflow as tf

DATA_DIR = "s3://ml-datasets/imagenet/train"

if not tf.io.gfile.exists(DATA_DIR):
    raise SystemExit(f"missing {DATA_DIR}")
print(tf.io.gfile.listdir(DATA_DIR)[:5])
