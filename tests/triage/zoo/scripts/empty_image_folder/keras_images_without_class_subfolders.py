"""Images placed directly in the root folder while image_dataset_from_directory expects one subfolder per class.

label: input_pipeline
family: empty_image_folder
source: keras-team/keras
"""

import os

import keras
import tensorflow as tf

os.makedirs("flowers", exist_ok=True)
for i in range(4):
    tf.io.write_file(f"flowers/img_{i}.png", tf.io.encode_png(tf.zeros((8, 8, 3), tf.uint8)))
ds = keras.utils.image_dataset_from_directory("flowers", image_size=(8, 8), batch_size=2)
model = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Flatten(), keras.layers.Dense(2)])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, epochs=1)
