"""A Keras classifier declared for flat 784-vectors is fed 28x28 images.

label: compile_error
family: matmul_shape_mismatch
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(10)])
model.compile("adam", "mse")
model.fit(np.zeros((64, 28, 28), "float32"), np.zeros((64, 10), "float32"), epochs=1, verbose=0)
