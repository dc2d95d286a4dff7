"""Gradients checked with tf.debugging.assert_all_finite after a division by a zero-variance batch.

label: nan_inf
family: check_numerics
"""

import tensorflow as tf

scale = tf.Variable(1.0)


@tf.function
def step(x):
    with tf.GradientTape() as tape:
        mean, var = tf.nn.moments(x, axes=[0])
        y = scale * (x - mean) / tf.sqrt(var)
        loss = tf.reduce_sum(y**2)
    g = tape.gradient(loss, scale)
    tf.debugging.assert_all_finite(g, "gradient of scale")
    scale.assign_sub(0.01 * g)
    return loss


print(step(tf.constant([4.0, 4.0, 4.0, 4.0])))
