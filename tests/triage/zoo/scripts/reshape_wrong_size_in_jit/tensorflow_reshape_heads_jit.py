"""Multi-head split reshapes d_model=768 into 10 heads of 64 inside a jit_compile=True layer.

label: compile_error
family: reshape_wrong_size_in_jit
"""

import tensorflow as tf

NUM_HEADS, HEAD_DIM = 10, 64


@tf.function(jit_compile=True)
def split_heads(x):
    b, t = tf.shape(x)[0], tf.shape(x)[1]
    return tf.transpose(tf.reshape(x, [b, t, NUM_HEADS, HEAD_DIM]), [0, 2, 1, 3])


print(split_heads(tf.ones([2, 16, 768])).shape)
