"""Keras Conv2D stack applied to full-resolution 8k x 8k scans with batch 16.

label: oom
family: image_too_large_for_conv
"""

import keras
import tensorflow as tf

model = keras.Sequential(
    [
        keras.Input((8192, 8192, 3)),
        keras.layers.Conv2D(64, 3, padding="same"),
        keras.layers.GlobalAveragePooling2D(),
    ]
)
images = tf.zeros((16, 8192, 8192, 3))
print(model(images).shape)
