"""A residual connection adds tensors of different widths.

label: compile_error
family: broadcast_mismatch
"""

import tensorflow as tf

x = tf.random.normal([4, 64])
y = tf.random.normal([4, 48])
tf.add(x, y)
