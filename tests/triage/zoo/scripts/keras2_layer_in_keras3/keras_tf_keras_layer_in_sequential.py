"""A legacy tf.compat.v1 layer object is added to a Keras 3 Sequential model.

label: unknown
family: keras2_layer_in_keras3
source: tensorflow/tensorflow
"""

import keras
import tensorflow as tf

legacy = tf.compat.v1.layers.Dense(4)
model = keras.Sequential([keras.Input((3,)), legacy])
print(model.summary())
