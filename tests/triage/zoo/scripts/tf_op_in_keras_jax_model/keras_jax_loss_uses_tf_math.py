"""Keras 3 with the JAX backend trained with a custom loss written with tf.math ops.

label: unsupported_op
family: tf_op_in_keras_jax_model
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np
import tensorflow as tf


def focal(y_true, y_pred):
    p = tf.math.sigmoid(y_pred)
    return tf.reduce_mean(-y_true * tf.math.pow(1 - p, 2.0) * tf.math.log(p + 1e-7))


model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", focal)
model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=1, verbose=0)
