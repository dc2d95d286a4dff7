"""load_weights of a 2-layer model's weights into a 3-layer model.

label: checkpoint
family: checkpoint_assert_consumed
source: tensorflow/tensorflow
"""

import keras

small = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(1)])
small.save_weights("small.weights.h5")
big = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(8), keras.layers.Dense(1)]
)
big.load_weights("small.weights.h5")
