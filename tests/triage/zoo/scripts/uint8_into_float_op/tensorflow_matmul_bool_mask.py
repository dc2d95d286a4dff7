"""A boolean attention mask is matrix-multiplied with float activations.

label: unsupported_dtype
family: uint8_into_float_op
"""

import tensorflow as tf

mask = tf.ones((4, 4), tf.bool)


@tf.function
def apply_mask(x):
    return tf.matmul(mask, x)


print(apply_mask(tf.ones((4, 8))))
