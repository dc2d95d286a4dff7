"""Feature-cross keys built with tf.strings.as_string/join from int ids inside a jit_compile=True step.

label: unsupported_op
family: string_ops_under_xla
"""

import tensorflow as tf

emb = tf.Variable(tf.random.normal([10_000, 8]))


@tf.function(jit_compile=True)
def cross_embedding(user_id, item_id):
    key = tf.strings.join([tf.strings.as_string(user_id), tf.strings.as_string(item_id)], separator="_")
    bucket = tf.strings.to_hash_bucket_fast(key, 10_000)
    return tf.gather(emb, bucket)


print(cross_embedding(tf.constant([3, 7]), tf.constant([11, 42])).shape)
