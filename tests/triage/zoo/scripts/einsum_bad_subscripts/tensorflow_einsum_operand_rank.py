"""tf.einsum subscripts written for rank-3 operands applied to a rank-4 multi-head tensor.

label: compile_error
family: einsum_bad_subscripts
"""

import tensorflow as tf


@tf.function
def scores(q, k):
    return tf.einsum("bqd,bkd->bqk", q, k)


print(scores(tf.ones((2, 4, 5, 8)), tf.ones((2, 4, 6, 8))))
