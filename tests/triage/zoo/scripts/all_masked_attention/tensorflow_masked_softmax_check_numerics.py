"""A TF attention layer masks a padded sequence entirely with -inf; check_numerics on the weights fires.

label: nan_inf
family: all_masked_attention
"""

import tensorflow as tf


@tf.function
def attend(logits, mask):
    logits = tf.where(mask, logits, float("-inf"))
    w = tf.nn.softmax(logits, axis=-1)
    return tf.debugging.check_numerics(w, "attention weights")


print(attend(tf.ones((2, 3)), tf.constant([[True, True, False], [False, False, False]])))
