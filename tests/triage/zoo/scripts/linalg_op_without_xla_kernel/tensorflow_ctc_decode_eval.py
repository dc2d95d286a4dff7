"""Speech model eval decodes with tf.nn.ctc_greedy_decoder inside a jit_compile=True function.

label: unsupported_op
family: linalg_op_without_xla_kernel
why: the op (CTC decoding) has no XLA kernel; the fix is to run it outside the compiled function
"""

import tensorflow as tf


@tf.function(jit_compile=True)
def decode(logits, lengths):
    decoded, _ = tf.nn.ctc_greedy_decoder(tf.transpose(logits, [1, 0, 2]), lengths)
    return tf.sparse.to_dense(decoded[0])


print(decode(tf.random.normal([2, 20, 29]), tf.constant([20, 15])))
