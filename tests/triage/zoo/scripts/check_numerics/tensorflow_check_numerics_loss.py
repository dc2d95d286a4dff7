"""Custom loop guards the loss with tf.debugging.check_numerics; log of a zero probability makes it inf.

label: nan_inf
family: check_numerics
"""

import tensorflow as tf

w = tf.Variable([[2.0, -2.0], [-50.0, 50.0]])


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        probs = tf.nn.softmax(x @ w)
        loss = -tf.reduce_mean(tf.reduce_sum(y * tf.math.log(probs), axis=-1))
        loss = tf.debugging.check_numerics(loss, "cross-entropy loss")
    w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss


print(train_step(tf.constant([[0.0, 10.0]]), tf.constant([[1.0, 0.0]])))
