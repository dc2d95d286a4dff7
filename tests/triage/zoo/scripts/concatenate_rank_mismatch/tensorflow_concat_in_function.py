"""tf.concat joins image features and a metadata vector of another rank inside tf.function.

label: compile_error
family: concatenate_rank_mismatch
"""

import tensorflow as tf


@tf.function
def fuse(img, meta):
    return tf.concat([img, meta], axis=1)


print(fuse(tf.ones((2, 7, 7, 16)), tf.ones((2, 4))))
