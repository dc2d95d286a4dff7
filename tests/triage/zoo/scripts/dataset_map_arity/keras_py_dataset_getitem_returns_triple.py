"""A keras.utils.PyDataset yields (x, y, extra) where fit expects (x, y) or (x, y, sample_weight) of matching shapes.

label: input_pipeline
family: dataset_map_arity
source: tensorflow/datasets
"""

import keras
import numpy as np


class Batches(keras.utils.PyDataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return np.ones((4, 3)), np.ones((4, 1)), ["a", "b", "c", "d"]


model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(Batches(), epochs=1)
