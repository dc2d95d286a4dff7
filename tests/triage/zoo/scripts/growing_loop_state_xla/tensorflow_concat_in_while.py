"""Sequence grown with tf.concat in a tf.while_loop (shape_invariants [1, None]) inside jit_compile=True.

label: dynamic_shape
family: growing_loop_state_xla
"""

import tensorflow as tf


@tf.function(jit_compile=True)
def generate(prompt, steps):
    def body(i, seq):
        nxt = tf.reduce_sum(seq[:, -1:], axis=1, keepdims=True) % 7
        return i + 1, tf.concat([seq, nxt], axis=1)

    _, seq = tf.while_loop(
        lambda i, s: i < steps,
        body,
        [tf.constant(0), prompt],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([1, None])],
    )
    return seq


print(generate(tf.constant([[1, 2, 3]]), tf.constant(5)))
