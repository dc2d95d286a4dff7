"""Keras fit with enable_check_numerics and a custom RMSE loss that takes sqrt of a negative number.

label: nan_inf
family: check_numerics
"""

import keras
import numpy as np
import tensorflow as tf

tf.debugging.enable_check_numerics()


def rmse_with_bias(y_true, y_pred):
    return tf.sqrt(tf.reduce_mean(y_true - y_pred))  # forgot the square


model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile("sgd", rmse_with_bias)
model.fit(np.ones((8, 3), "float32"), -np.ones((8, 1), "float32") * 10, epochs=1)
