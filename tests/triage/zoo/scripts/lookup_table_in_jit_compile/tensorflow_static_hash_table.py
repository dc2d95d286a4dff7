"""Vocabulary lookup with tf.lookup.StaticHashTable inside a jit_compile=True function.

label: unsupported_op
family: lookup_table_in_jit_compile
why: XLA first rejects the string argument, but the fix is moving the string op into the input pipeline
"""

import tensorflow as tf

keys = tf.constant(["cat", "dog", "bird"])
table = tf.lookup.StaticHashTable(
    tf.lookup.KeyValueTensorInitializer(keys, tf.constant([0, 1, 2], tf.int64)), -1
)
emb = tf.Variable(tf.random.normal([3, 4]))


@tf.function(jit_compile=True)
def embed(words):
    ids = table.lookup(words)
    return tf.gather(emb, tf.maximum(ids, 0))


print(embed(tf.constant(["dog", "cat"])))
