"""from_generator declares feature vectors of 4 values; one source row has 3.

label: input_pipeline
family: generator_raises
"""

import numpy as np
import tensorflow as tf

rows = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11], [12, 13, 14, 15]]


def gen():
    for r in rows:
        yield np.asarray(r, np.float32), np.int32(len(r) % 2)


ds = tf.data.Dataset.from_generator(
    gen, output_signature=(tf.TensorSpec([4], tf.float32), tf.TensorSpec([], tf.int32))
).batch(2)
for x, y in ds:
    print(x.shape, y.numpy())
