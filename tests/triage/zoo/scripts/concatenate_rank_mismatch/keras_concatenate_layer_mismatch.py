"""keras.layers.Concatenate joins a (None, 10, 8) and a (None, 8) branch.

label: compile_error
family: concatenate_rank_mismatch
"""

import keras

a = keras.Input((10, 8))
b = keras.Input((8,))
out = keras.layers.Concatenate()([a, b])
print(keras.Model([a, b], out).summary())
