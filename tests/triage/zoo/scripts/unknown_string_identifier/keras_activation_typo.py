"""Dense(activation='rellu') typo.

label: unknown
family: unknown_string_identifier
"""

import keras

model = keras.Sequential(
    [keras.Input(shape=(4,)), keras.layers.Dense(8, activation="rellu"), keras.layers.Dense(1)]
)
model.summary()
