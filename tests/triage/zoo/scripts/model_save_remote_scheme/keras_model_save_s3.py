"""Trained Keras model exported with model.save('s3://...').

label: local_filesystem
family: model_save_remote_scheme
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(np.ones((16, 4)), np.zeros((16, 1)), epochs=1, verbose=0)
model.save("s3://ml-models/prod/ranker.keras")
