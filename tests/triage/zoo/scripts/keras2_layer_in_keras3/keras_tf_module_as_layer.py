"""A tf.Module is placed in a Keras 3 functional model as if it were a layer.

label: unknown
family: keras2_layer_in_keras3
source: tensorflow/tensorflow
"""

import keras
import tensorflow as tf


class Scale(tf.Module):
    def __call__(self, x):
        return x * 2


inputs = keras.Input((3,))
model = keras.Sequential([inputs, Scale(), keras.layers.Dense(1)])
print(model)
