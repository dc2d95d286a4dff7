"""keras.models.load_model is pointed at a .weights.h5 file that holds weights only.

label: checkpoint
family: weights_file_wrong_format
"""

import keras

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.save_weights("run.weights.h5")
restored = keras.models.load_model("run.weights.h5")
print(restored)
