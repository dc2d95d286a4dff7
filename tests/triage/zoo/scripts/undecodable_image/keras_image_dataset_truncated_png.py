"""image_dataset_from_directory over a folder with a truncated PNG.

label: input_pipeline
family: undecodable_image
"""

import os
import tempfile

import keras
import tensorflow as tf

root = tempfile.mkdtemp()
for cls in ("cats", "dogs"):
    os.makedirs(os.path.join(root, cls))
    for i in range(4):
        png = tf.io.encode_png(tf.fill([16, 16, 3], tf.constant(i * 40, tf.uint8))).numpy()
        if cls == "dogs" and i == 2:
            png = png[:40]  # upload interrupted
        with open(os.path.join(root, cls, f"{i}.png"), "wb") as f:
            f.write(png)

ds = keras.utils.image_dataset_from_directory(root, image_size=(16, 16), batch_size=4, shuffle=False)
model = keras.Sequential([keras.Input(shape=(16, 16, 3)), keras.layers.Flatten(), keras.layers.Dense(2)])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1)
