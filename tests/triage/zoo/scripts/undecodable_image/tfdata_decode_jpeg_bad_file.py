"""Image pipeline decodes every file in the folder, including a stray text file with a .jpg name.

label: input_pipeline
family: undecodable_image
"""

import os
import tempfile

import tensorflow as tf

root = tempfile.mkdtemp()
for i in range(3):
    tf.io.write_file(os.path.join(root, f"img_{i}.jpg"), tf.io.encode_jpeg(tf.zeros([8, 8, 3], tf.uint8)))
with open(os.path.join(root, "img_3.jpg"), "w") as f:
    f.write("<html>403 Forbidden</html>")  # a failed download saved as .jpg

files = tf.data.Dataset.list_files(os.path.join(root, "*.jpg"), shuffle=False)
ds = files.map(
    lambda p: tf.image.resize(tf.io.decode_jpeg(tf.io.read_file(p), channels=3), [224, 224])
).batch(4)
for b in ds:
    print(b.shape)
