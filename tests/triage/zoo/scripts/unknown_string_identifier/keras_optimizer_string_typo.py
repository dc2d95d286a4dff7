"""compile(optimizer='adamm') typo in the optimizer name.

label: unknown
family: unknown_string_identifier
"""

import keras

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer="adamm", loss="mse")
