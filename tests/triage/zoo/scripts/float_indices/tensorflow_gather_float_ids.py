"""Embedding lookup with ids that arrived as float32 from the feature pipeline.

label: unsupported_dtype
family: float_indices
"""

import tensorflow as tf

table = tf.Variable(tf.random.normal([100, 8]))
ids = tf.constant([[1.0, 5.0, 7.0]])  # parsed as floats from the CSV


@tf.function
def embed(ids):
    return tf.reduce_mean(tf.gather(table, ids), axis=1)


print(embed(ids))
