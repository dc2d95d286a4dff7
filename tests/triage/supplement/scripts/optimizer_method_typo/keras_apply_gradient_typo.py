"""A custom training loop calls a misspelled optimizer method.

label: unknown
family: optimizer_method_typo
"""

import keras
import numpy as np
import tensorflow as tf

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
opt = keras.optimizers.Adam(1e-3)
x = np.ones((8, 4), "float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
grads = tape.gradient(loss, model.trainable_variables)
opt.apply_gradient(zip(grads, model.trainable_variables, strict=True))
