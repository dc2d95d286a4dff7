"""Shard list globbed from an az:// container with tf.io.gfile.glob.

label: local_filesystem
family: gfile_scheme_not_registered
"""

import tensorflow as tf

pattern = "az://trainingdata/shards/train-*.tfrecord"
shards = tf.io.gfile.glob(pattern)
print(f"{len(shards)} shards")
