"""model.save('export/ranker') in the Keras 2 SavedModel style (no .keras extension).

label: checkpoint
family: keras_checkpoint_filepath_extension
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(np.ones((16, 4)), np.zeros((16, 1)), epochs=1, verbose=0)
model.save("export/ranker")
