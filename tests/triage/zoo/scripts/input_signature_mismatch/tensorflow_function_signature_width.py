"""A tf.function with input_signature (None, 3) is called with 4 features.

label: compile_error
family: input_signature_mismatch
"""

import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
def serve(x):
    return tf.reduce_sum(x, axis=1)


print(serve(tf.ones((2, 4))))
