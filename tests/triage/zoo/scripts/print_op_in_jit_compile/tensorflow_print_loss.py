"""tf.print of the loss every step inside a jit_compile=True train step.

label: unsupported_op
family: print_op_in_jit_compile
"""

import tensorflow as tf

w = tf.Variable(tf.ones([4, 1]))
opt = tf.keras.optimizers.SGD(0.01)


@tf.function(jit_compile=True)
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    tf.print("step loss:", loss)
    return loss


train_step(tf.ones([8, 4]), tf.zeros([8, 1]))
