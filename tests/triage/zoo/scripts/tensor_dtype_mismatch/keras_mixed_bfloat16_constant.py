"""Under the mixed_bfloat16 policy a custom layer adds a float32 positional table to bf16 activations.

label: unsupported_dtype
family: tensor_dtype_mismatch
"""

import keras
import numpy as np
import tensorflow as tf

keras.mixed_precision.set_global_policy("mixed_bfloat16")


class AddPositions(keras.layers.Layer):
    def __init__(self, length, dim, **kw):
        super().__init__(**kw)
        pos = np.arange(length)[:, None] / np.power(10000, np.arange(dim)[None] / dim)
        self.table = tf.constant(np.sin(pos), tf.float32)

    def call(self, x):
        return tf.add(x, self.table)


inputs = keras.Input(shape=(16, 32))
x = keras.layers.Dense(32)(inputs)
x = AddPositions(16, 32)(x)
outputs = keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(x))
model = keras.Model(inputs, outputs)
model.compile("adam", "mse")
model.fit(np.ones((8, 16, 32), "float32"), np.ones((8, 1), "float32"), epochs=1)
