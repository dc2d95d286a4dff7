"""Feature matrix with missing values as None (object dtype) passed to model.fit.

label: unsupported_dtype
family: object_array_to_tensor
"""

import keras
import numpy as np

rows = [[1.0, 2.5, 3.0], [0.5, None, 1.0], [2.0, 1.5, None], [1.0, 1.0, 1.0]]
x = np.array(rows)  # dtype=object because of the None entries
y = np.array([1.0, 0.0, 1.0, 0.0])

model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(x, y, epochs=1)
