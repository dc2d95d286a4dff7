"""tf.data.Dataset.list_files globs an hdfs:// pattern.

label: local_filesystem
family: tfrecord_remote_scheme
source: tensorflow/tensorflow
"""

import tensorflow as tf

ds = tf.data.Dataset.list_files("hdfs://namenode:8020/data/train-*.tfrecord", shuffle=False)
for f in ds.take(1):
    print(f)
