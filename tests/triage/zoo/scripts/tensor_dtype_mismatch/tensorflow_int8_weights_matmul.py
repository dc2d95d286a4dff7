"""Post-training int8 weights used directly in tf.matmul against int8 activations.

label: unsupported_dtype
family: tensor_dtype_mismatch
"""

import tensorflow as tf

w_fp = tf.random.normal([64, 32])
scale = tf.reduce_max(tf.abs(w_fp)) / 127.0
w_q = tf.cast(tf.round(w_fp / scale), tf.int8)


@tf.function
def qdense(x):
    x_q = tf.cast(tf.round(x / scale), tf.int8)
    return tf.cast(tf.matmul(x_q, w_q), tf.float32) * scale * scale


print(qdense(tf.random.normal([4, 64])))
