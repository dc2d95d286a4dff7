"""Position ids from tf.math.cumsum over the tokenizer's uint8 attention mask in a jit_compile=True step.

label: unsupported_dtype
family: no_xla_kernel_for_dtype
"""

import tensorflow as tf

pos_emb = tf.Variable(tf.random.normal([128, 16]))


@tf.function(jit_compile=True)
def positions(attention_mask):
    pos = tf.math.cumsum(attention_mask, axis=1) - 1  # mask is uint8 from the tokenizer
    return tf.gather(pos_emb, tf.cast(tf.maximum(pos, 0), tf.int32))


mask = tf.constant([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], tf.uint8)
print(positions(mask).shape)
