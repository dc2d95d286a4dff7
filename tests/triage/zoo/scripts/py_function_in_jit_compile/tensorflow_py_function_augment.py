"""Augmentation via tf.py_function (PIL-style) called inside the jit_compile=True train step.

label: unsupported_op
family: py_function_in_jit_compile
"""

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
opt = tf.keras.optimizers.Adam()


def random_flip_np(img):
    return img[:, ::-1] if np.random.rand() < 0.5 else img


@tf.function(jit_compile=True)
def train_step(images, labels):
    images = tf.py_function(random_flip_np, [images], tf.float32)
    images.set_shape([None, 8, 8])
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = tf.reduce_mean(
            tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)
        )
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


print(train_step(tf.zeros([4, 8, 8]), tf.constant([0, 1, 2, 3])))
