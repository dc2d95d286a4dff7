"""Preprocessing map reshapes 32x32x3 images to 28x28 (copied from an MNIST script) before model.fit.

label: input_pipeline
family: error_in_map_fn
"""

import keras
import tensorflow as tf

images = tf.random.uniform([64, 32, 32, 3])
labels = tf.random.uniform([64], maxval=10, dtype=tf.int32)
ds = tf.data.Dataset.from_tensor_slices((images, labels))
ds = ds.map(lambda x, y: (tf.reshape(x, [28, 28, 1]), y)).batch(16)

model = keras.Sequential([keras.Input(shape=(28, 28, 1)), keras.layers.Flatten(), keras.layers.Dense(10)])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1)
