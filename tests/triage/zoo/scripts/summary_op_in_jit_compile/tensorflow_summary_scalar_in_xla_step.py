"""tf.summary.scalar written from inside a jit_compile=True train step.

label: unsupported_op
family: summary_op_in_jit_compile
"""

import tensorflow as tf

writer = tf.summary.create_file_writer("logs")
w = tf.Variable(1.0)


@tf.function(jit_compile=True)
def step(x):
    loss = tf.reduce_mean((w * x) ** 2)
    tf.summary.scalar("loss", loss, step=0)
    return loss


with writer.as_default():
    print(step(tf.ones(4)))
