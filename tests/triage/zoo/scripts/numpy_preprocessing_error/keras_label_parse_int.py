"""Labels parsed with int() from a CSV column that contains class names.

label: unknown
family: numpy_preprocessing_error
"""

import keras
import numpy as np

rows = ["0.1,0.2,1", "0.3,0.4,0", "0.5,0.6,cat"]
x = np.array([[float(v) for v in r.split(",")[:2]] for r in rows], "float32")
y = np.array([int(r.split(",")[2]) for r in rows])
model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x, y, epochs=1)
