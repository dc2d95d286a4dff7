"""Keras preprocessing layer decodes PNG bytes inside a model compiled with jit_compile=True.

label: unsupported_op
family: image_decode_in_compiled_step
why: XLA first rejects the string argument, but the fix is moving the string op into the input pipeline
"""

import keras
import numpy as np
import tensorflow as tf


class DecodePNG(keras.layers.Layer):
    def call(self, raw):
        return tf.map_fn(
            lambda b: tf.cast(tf.io.decode_png(b, channels=1), tf.float32) / 255.0,
            raw,
            fn_output_signature=tf.TensorSpec([28, 28, 1], tf.float32),
        )


png = tf.io.encode_png(tf.zeros([28, 28, 1], tf.uint8)).numpy()
ds = tf.data.Dataset.from_tensor_slices(([png] * 8, np.zeros(8, "int32"))).batch(4)

inputs = keras.Input(shape=(), dtype="string")
x = DecodePNG()(inputs)
x = keras.layers.Flatten()(x)
outputs = keras.layers.Dense(10)(x)
model = keras.Model(inputs, outputs)
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=True)
model.fit(ds, epochs=1)
