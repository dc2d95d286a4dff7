"""Keras 3 with the JAX backend: a custom layer calls tf.reduce_logsumexp on its JAX inputs.

label: unsupported_op
family: tf_op_in_keras_jax_model
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np
import tensorflow as tf


class LSE(keras.layers.Layer):
    def call(self, x):
        return tf.reduce_logsumexp(x, axis=-1, keepdims=True)


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), LSE()])
model.compile("adam", "mse")
model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=1, verbose=0)
