"""Python generator behind from_generator hits a malformed line and raises ValueError.

label: input_pipeline
family: generator_raises
"""

import numpy as np
import tensorflow as tf

LINES = ["0.1 0.2 0.3", "0.4 0.5 0.6", "0.7 n/a 0.9", "1.0 1.1 1.2"]


def gen():
    for line in LINES:
        yield np.array([float(v) for v in line.split()], np.float32)


ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec([3], tf.float32)).batch(2)
for b in ds:
    print(b.numpy())
