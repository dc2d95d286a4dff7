"""Raw uint8 images fed straight into tf.nn.conv2d in a compiled step.

label: unsupported_dtype
family: uint8_into_float_op
"""

import tensorflow as tf

images = tf.zeros((2, 32, 32, 3), tf.uint8)
kernel = tf.Variable(tf.ones((3, 3, 3, 8)))


@tf.function
def features(x):
    return tf.nn.conv2d(x, kernel, 1, "SAME")


print(features(images).shape)
