"""A tf.function with an int32 input_signature is called with int64 token ids.

label: compile_error
family: input_signature_mismatch
"""

import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec([None, None], tf.int32)])
def embed(ids):
    return tf.one_hot(ids, 10)


print(embed(tf.constant([[1, 2, 3]], tf.int64)))
