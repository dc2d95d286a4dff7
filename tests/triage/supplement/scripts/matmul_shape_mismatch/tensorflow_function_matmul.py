"""A tf.function projects features with a kernel built for another feature size.

label: compile_error
family: matmul_shape_mismatch
"""

import tensorflow as tf

kernel = tf.Variable(tf.zeros([300, 10]))


@tf.function
def project(x):
    return tf.matmul(x, kernel)


project(tf.zeros([16, 784]))
