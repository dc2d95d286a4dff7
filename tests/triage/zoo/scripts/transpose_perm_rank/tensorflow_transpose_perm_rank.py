"""tf.transpose with a permutation written for NHWC images applied to a 3-D sequence batch.

label: compile_error
family: transpose_perm_rank
"""

import tensorflow as tf


@tf.function
def to_channels_first(x):
    return tf.transpose(x, [0, 3, 1, 2])


print(to_channels_first(tf.ones((2, 10, 16))))
