"""A tf.data generator yields None for rows whose image failed to load.

label: input_pipeline
family: generator_yields_none
"""

import numpy as np
import tensorflow as tf


def rows():
    for i in range(4):
        yield np.ones(3, np.float32) if i != 2 else None


ds = tf.data.Dataset.from_generator(rows, output_signature=tf.TensorSpec([3], tf.float32)).batch(2)
for b in ds:
    print(b.shape)
