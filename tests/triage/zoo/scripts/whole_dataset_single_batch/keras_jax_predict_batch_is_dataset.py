"""Keras 3 on JAX: predict called with batch_size equal to the whole dataset of large images.

label: oom
family: whole_dataset_single_batch
"""

import os
import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
os.environ["KERAS_BACKEND"] = "jax"

import keras
import numpy as np

model = keras.Sequential(
    [
        keras.Input((512, 512, 3)),
        keras.layers.Conv2D(256, 3, padding="same"),
        keras.layers.GlobalAveragePooling2D(),
    ]
)
images = np.zeros((64, 512, 512, 3), np.float32)
print(model.predict(images, batch_size=len(images)).shape)
