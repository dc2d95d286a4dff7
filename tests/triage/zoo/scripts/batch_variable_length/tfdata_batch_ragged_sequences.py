"""Tokenised sentences of different lengths batched with .batch() instead of .padded_batch().

label: input_pipeline
family: batch_variable_length
"""

import tensorflow as tf

sentences = tf.ragged.constant([[4, 12, 9], [7, 1], [3, 3, 8, 2, 5], [6]])
ds = tf.data.Dataset.from_tensor_slices(sentences).map(lambda t: t).batch(2)
for b in ds:
    print(b)
