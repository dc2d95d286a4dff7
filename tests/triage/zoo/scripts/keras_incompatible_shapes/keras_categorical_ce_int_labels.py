"""categorical_crossentropy with integer class ids (shape (N, 1)) instead of one-hot targets.

label: compile_error
family: keras_incompatible_shapes
why: shapes of targets and outputs disagree when the train step is traced
"""

import keras
import numpy as np

x = np.random.rand(32, 8).astype("float32")
y = np.random.randint(0, 5, size=(32, 1))

model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(5, activation="softmax")])
model.compile("adam", "categorical_crossentropy")
model.fit(x, y, epochs=1)
