"""Keras 3 DataParallel over 4 devices trained with batch_size=6.

label: strategy_scope
family: batch_not_divisible_by_mesh
source: Physical-Intelligence/openpi
"""

import os

os.environ["KERAS_BACKEND"] = "jax"
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import keras
import numpy as np

keras.distribution.set_distribution(keras.distribution.DataParallel())
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(np.ones((12, 8)), np.ones((12, 1)), batch_size=6, epochs=1, verbose=0)
