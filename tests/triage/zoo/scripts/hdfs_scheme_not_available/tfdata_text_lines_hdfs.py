"""TextLineDataset over an hdfs:// file read with a TF build that has no HDFS file system.

label: local_filesystem
family: hdfs_scheme_not_available
"""

import tensorflow as tf

ds = tf.data.TextLineDataset("hdfs://namenode:8020/user/ml/corpus/part-00000.txt")
ds = ds.map(tf.strings.split).take(2)
for line in ds:
    print(line)
