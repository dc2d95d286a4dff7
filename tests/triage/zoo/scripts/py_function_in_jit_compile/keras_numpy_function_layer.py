"""Keras layer wraps a scipy/numpy op with tf.numpy_function; the model is compiled with jit_compile=True.

label: unsupported_op
family: py_function_in_jit_compile
"""

import keras
import numpy as np
import tensorflow as tf


class MedianNormalize(keras.layers.Layer):
    def call(self, x):
        med = tf.numpy_function(
            lambda a: np.median(a, axis=-1, keepdims=True).astype(np.float32), [x], tf.float32
        )
        med = tf.ensure_shape(med, [None, 1])
        return x - med


inputs = keras.Input(shape=(16,))
x = MedianNormalize()(inputs)
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="mse", jit_compile=True)
model.fit(np.random.rand(64, 16).astype("float32"), np.random.rand(64, 1).astype("float32"), epochs=1)
