"""A TF retrieval step broadcasts queries against the whole index to (Q, N, D).

label: oom
family: pairwise_broadcast_oom
source: jax-ml/jax
"""

import tensorflow as tf

queries = tf.ones((4096, 256))
index = tf.ones((200_000, 256))


@tf.function
def nearest(q, idx):
    d = tf.reduce_sum((q[:, None, :] - idx[None, :, :]) ** 2, axis=-1)
    return tf.argmin(d, axis=1)


print(nearest(queries, index))
