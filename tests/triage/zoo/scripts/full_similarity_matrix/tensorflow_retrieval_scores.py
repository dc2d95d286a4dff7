"""Retrieval eval scores every query against every document in one compiled tf.function.

label: oom
family: full_similarity_matrix
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # keep the host safe: fail fast

import tensorflow as tf

queries = tf.random.normal([300_000, 64])
docs = tf.random.normal([2_000_000, 64])


@tf.function(jit_compile=True)
def recall_at_1(q, d):
    scores = tf.matmul(q, d, transpose_b=True)  # 300k x 2M float32
    best = tf.argmax(scores, axis=1)
    return tf.reduce_mean(tf.cast(tf.equal(best, tf.range(tf.shape(q)[0], dtype=tf.int64)), tf.float32))


print("recall@1:", recall_at_1(queries, docs).numpy())
