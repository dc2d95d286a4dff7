"""tf.tile repeats a (1, 100k) row table to the batch of 100k in a TF step.

label: oom
family: tile_explosion_oom
"""

import tensorflow as tf

table = tf.ones((1, 100_000))


@tf.function
def expand(t):
    return tf.reduce_sum(tf.tile(t, [100_000, 1]))


print(expand(table))
