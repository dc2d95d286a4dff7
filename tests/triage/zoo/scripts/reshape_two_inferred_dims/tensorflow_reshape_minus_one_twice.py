"""tf.reshape with two -1 dimensions inside a tf.function.

label: compile_error
family: reshape_two_inferred_dims
"""

import tensorflow as tf


@tf.function
def flatten_patches(x):
    return tf.reshape(x, [-1, -1, 3])


print(flatten_patches(tf.ones((2, 4, 4, 3))))
