"""A keras.utils.PyDataset __getitem__ falls through and returns None for the last batch.

label: input_pipeline
family: generator_yields_none
"""

import keras
import numpy as np


class Batches(keras.utils.PyDataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        if i < 2:
            return np.ones((4, 3)), np.ones((4, 1))


model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(Batches(), epochs=1)
