"""Categorical feature hashed with tf.strings.to_hash_bucket_fast inside a jit_compile=True model call.

label: unsupported_op
family: string_ops_under_xla
why: XLA first rejects the string argument, but the fix is moving the string op into the input pipeline
"""

import tensorflow as tf

emb = tf.Variable(tf.random.normal([1000, 8]))


@tf.function(jit_compile=True)
def embed_country(countries):
    ids = tf.strings.to_hash_bucket_fast(countries, 1000)
    return tf.nn.embedding_lookup(emb, ids)


print(embed_country(tf.constant(["DE", "FR", "JP"])).shape)
