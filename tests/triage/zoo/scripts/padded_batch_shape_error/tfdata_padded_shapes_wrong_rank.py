"""padded_batch given a rank-2 padded shape for rank-1 token sequences.

label: input_pipeline
family: padded_batch_shape_error
source: tensorflow/tensorflow
"""

import tensorflow as tf

ds = tf.data.Dataset.range(1, 5).map(lambda n: tf.range(n))
ds = ds.padded_batch(2, padded_shapes=[8, 1])
print(next(iter(ds)))
