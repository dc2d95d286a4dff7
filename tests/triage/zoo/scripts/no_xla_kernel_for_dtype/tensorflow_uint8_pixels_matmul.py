"""Raw uint8 pixels go straight into a matmul inside a jit_compile=True step (no cast to float).

label: unsupported_dtype
family: no_xla_kernel_for_dtype
"""

import tensorflow as tf

proj = tf.Variable(tf.random.uniform([784, 10], maxval=3, dtype=tf.int32))


@tf.function(jit_compile=True)
def logits(images_u8):
    flat = tf.reshape(images_u8, [-1, 784])
    return tf.matmul(flat, tf.cast(proj, tf.uint8))


print(logits(tf.zeros([2, 28, 28], tf.uint8)))
