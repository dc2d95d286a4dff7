"""model.fit is called on a Keras model that was never compiled.

label: unknown
family: fit_before_compile
source: keras-team/keras
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=1)
