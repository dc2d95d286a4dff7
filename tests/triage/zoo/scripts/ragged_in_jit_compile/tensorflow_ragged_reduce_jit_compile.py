"""A RaggedTensor of token ids is reduced inside a jit_compile=True function.

label: unsupported_op
family: ragged_in_jit_compile
source: tensorflow/tensorflow
"""

import tensorflow as tf


@tf.function(jit_compile=True)
def mean_len(values, row_splits):
    rt = tf.RaggedTensor.from_row_splits(values, row_splits)
    return tf.reduce_mean(tf.cast(rt.row_lengths(), tf.float32)) + tf.cast(
        tf.reduce_sum(rt.to_tensor()), tf.float32
    )


print(mean_len(tf.constant([1, 2, 3, 4, 5]), tf.constant([0, 2, 5], tf.int64)))
