"""Keras 2 import path keras.layers.experimental.preprocessing used with Keras 3.

label: unknown
family: removed_api_import
"""

import keras
from keras.layers.experimental import preprocessing

norm = preprocessing.Normalization()
print(norm, keras.__version__)
