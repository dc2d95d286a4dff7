"""Data directory on HDFS listed with tf.io.gfile in a TF build without an HDFS file system.

label: local_filesystem
family: hdfs_scheme_not_available
"""

import tensorflow as tf

DATA_DIR = "hdfs://namenode:8020/user/ml/datasets/clicks"
for name in tf.io.gfile.listdir(DATA_DIR):
    print(name)
