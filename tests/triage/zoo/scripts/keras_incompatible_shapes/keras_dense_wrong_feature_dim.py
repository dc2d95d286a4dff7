"""Model built for 784 features trained on images kept as (28, 28) arrays.

label: compile_error
family: keras_incompatible_shapes
"""

import keras
import numpy as np

model = keras.Sequential(
    [keras.Input(shape=(784,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)]
)
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
x = np.random.rand(64, 28, 28).astype("float32")
y = np.random.randint(0, 10, 64)
model.fit(x, y, epochs=1)
