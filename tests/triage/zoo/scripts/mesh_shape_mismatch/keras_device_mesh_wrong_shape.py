"""Keras DeviceMesh declared as (2, 4) with only 4 devices listed.

label: strategy_scope
family: mesh_shape_mismatch
source: jax-ml/jax
"""

import os

os.environ["KERAS_BACKEND"] = "jax"
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import keras

devices = keras.distribution.list_devices()
mesh = keras.distribution.DeviceMesh((2, 4), ["batch", "model"], devices)
print(mesh)
