"""Custom Keras layer reshapes with a size computed from the data; model compiled with jit_compile=True.

label: dynamic_shape
family: data_dependent_size_jit_compile
"""

import keras
import numpy as np
import tensorflow as tf


class SplitByCount(keras.layers.Layer):
    def call(self, x):
        groups = tf.cast(tf.reduce_max(x[:, 0]) + 1, tf.int32)  # number of groups present in the data
        return tf.reshape(x, [groups, -1])


inputs = keras.Input(shape=(8,))
x = SplitByCount()(inputs)
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="sgd", loss="mse", jit_compile=True)
model.fit(np.ones((16, 8), "float32"), np.ones((16, 1), "float32"), batch_size=16, epochs=1)
