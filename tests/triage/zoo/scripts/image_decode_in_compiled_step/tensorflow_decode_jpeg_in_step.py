"""JPEG bytes are decoded inside the jit_compile=True train step instead of in the tf.data pipeline.

label: unsupported_op
family: image_decode_in_compiled_step
why: XLA first rejects the string argument, but the fix is moving the string op into the input pipeline
"""

import tensorflow as tf

jpeg = tf.io.encode_jpeg(tf.zeros([32, 32, 3], tf.uint8))
conv = tf.keras.layers.Conv2D(8, 3)


@tf.function(jit_compile=True)
def forward(jpeg_bytes):
    img = tf.io.decode_jpeg(jpeg_bytes, channels=3)
    img = tf.image.convert_image_dtype(img, tf.float32)[None]
    return tf.reduce_mean(conv(img))


print(forward(jpeg))
