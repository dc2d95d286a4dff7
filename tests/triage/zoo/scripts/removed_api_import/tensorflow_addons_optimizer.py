"""Training script imports tensorflow_addons for AdamW; the package is not installed.

label: unknown
family: removed_api_import
"""

import tensorflow as tf
import tensorflow_addons as tfa

optimizer = tfa.optimizers.AdamW(weight_decay=1e-4, learning_rate=1e-3)
model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer, "mse")
