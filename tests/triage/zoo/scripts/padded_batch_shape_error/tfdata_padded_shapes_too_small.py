"""padded_batch with padded_shapes shorter than the longest sequence.

label: input_pipeline
family: padded_batch_shape_error
source: tensorflow/tensorflow
"""

import tensorflow as tf

seqs = [[1, 2, 3], [4, 5, 6, 7, 8, 9, 10], [1]]
ds = tf.data.Dataset.from_generator(lambda: iter(seqs), output_signature=tf.TensorSpec([None], tf.int32))
ds = ds.padded_batch(3, padded_shapes=[5])
print(next(iter(ds)))
