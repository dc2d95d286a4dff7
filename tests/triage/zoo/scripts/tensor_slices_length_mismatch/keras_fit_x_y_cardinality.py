"""model.fit with 100 inputs and 90 targets.

label: input_pipeline
family: tensor_slices_length_mismatch
source: keras-team/keras
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(np.ones((100, 5)), np.ones((90, 1)), epochs=1)
