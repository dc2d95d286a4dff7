"""Tokenised sentences of different lengths are given to from_tensor_slices as nested Python lists.

label: input_pipeline
family: ragged_lists_to_dataset
"""

import tensorflow as tf

tokens = [[1, 2, 3], [4, 5], [6, 7, 8, 9]]
ds = tf.data.Dataset.from_tensor_slices(tokens).batch(2)
print(next(iter(ds)))
