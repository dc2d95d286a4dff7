"""Keras trains from a tf.data pipeline whose examples differ in length, so they cannot be batched.

label: input_pipeline
family: generator_element_mismatch
"""

import keras
import numpy as np
import tensorflow as tf


def examples():
    for n in (3, 5, 4, 6):
        yield np.ones(n, "float32"), np.float32(1)


ds = tf.data.Dataset.from_generator(
    examples, output_signature=(tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.float32))
).batch(2)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(ds, epochs=1, verbose=0)
