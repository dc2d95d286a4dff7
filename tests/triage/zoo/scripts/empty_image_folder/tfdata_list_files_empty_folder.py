"""tf.data.Dataset.list_files over an image folder that is empty on this host.

label: input_pipeline
family: empty_image_folder
source: tensorflow/tensorflow
"""

import os

import tensorflow as tf

os.makedirs("images", exist_ok=True)
ds = tf.data.Dataset.list_files("images/*/*.jpg")
ds = ds.map(lambda p: tf.image.decode_jpeg(tf.io.read_file(p)))
for img in ds.take(1):
    print(img.shape)
