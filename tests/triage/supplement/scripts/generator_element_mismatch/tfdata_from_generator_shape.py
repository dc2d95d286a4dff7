"""A generator-backed dataset yields records of a different length than its signature.

label: input_pipeline
family: generator_element_mismatch
"""

import numpy as np
import tensorflow as tf


def records():
    for _ in range(8):
        yield np.zeros(5, "float32")


ds = tf.data.Dataset.from_generator(records, output_signature=tf.TensorSpec([4], tf.float32))
for _batch in ds.batch(2):
    pass
