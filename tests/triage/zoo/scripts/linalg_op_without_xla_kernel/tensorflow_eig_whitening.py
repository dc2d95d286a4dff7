"""Feature whitening with tf.linalg.eig (general eigendecomposition) in a jit_compile=True step.

label: unsupported_op
family: linalg_op_without_xla_kernel
"""

import tensorflow as tf


@tf.function(jit_compile=True)
def whiten(x):
    x = x - tf.reduce_mean(x, 0)
    cov = tf.matmul(x, x, transpose_a=True) / tf.cast(tf.shape(x)[0], tf.float32)
    evals, evecs = tf.linalg.eig(cov)
    evals, evecs = tf.math.real(evals), tf.math.real(evecs)
    return x @ evecs / tf.sqrt(evals + 1e-5)


print(whiten(tf.random.normal([128, 8])).shape)
