"""Keras fit given variable-length token lists as x without padding.

label: input_pipeline
family: ragged_lists_to_dataset
"""

import keras
import numpy as np

x = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [1]]
model = keras.Sequential(
    [
        keras.Input((None,)),
        keras.layers.Embedding(10, 4),
        keras.layers.GlobalAveragePooling1D(),
        keras.layers.Dense(1),
    ]
)
model.compile("adam", "mse")
model.fit(x, np.ones((4, 1)), epochs=1, verbose=0)
