"""A TF masked loss divided by the count of valid tokens (zero for this batch) is guarded by check_numerics.

label: nan_inf
family: masked_mean_empty_mask
"""

import tensorflow as tf


@tf.function
def masked_loss(pred, target, mask):
    loss = tf.reduce_sum(tf.square(pred - target) * mask) / tf.reduce_sum(mask)
    return tf.debugging.check_numerics(loss, "masked loss")


print(masked_loss(tf.ones(4), tf.zeros(4), tf.zeros(4)))
