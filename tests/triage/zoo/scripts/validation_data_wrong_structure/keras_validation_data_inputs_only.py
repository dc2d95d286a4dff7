"""fit given validation_data=x_val alone, without targets.

label: input_pipeline
family: validation_data_wrong_structure
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(np.ones((16, 4)), np.ones((16, 1)), validation_data=np.ones((4, 4)), epochs=1)
