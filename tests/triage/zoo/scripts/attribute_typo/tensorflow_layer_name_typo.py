"""tf.keras.layers.Dence typo in a model definition.

label: unknown
family: attribute_typo
"""

import tensorflow as tf

model = tf.keras.Sequential(
    [
        tf.keras.Input(shape=(10,)),
        tf.keras.layers.Dense(32, activation="relu"),
        tf.keras.layers.Dence(1),
    ]
)
model.summary()
