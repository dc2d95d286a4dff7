"""A loss takes the log of probabilities that reach zero; numeric checks are on.

label: nan_inf
family: log_of_zero
"""

import tensorflow as tf

tf.debugging.enable_check_numerics()
probs = tf.constant([0.5, 0.0, 0.5])


@tf.function
def loss(p):
    return -tf.reduce_sum(tf.math.log(p))


loss(probs)
