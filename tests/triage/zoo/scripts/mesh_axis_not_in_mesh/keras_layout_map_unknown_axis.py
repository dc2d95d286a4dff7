"""Keras 3 (JAX backend) LayoutMap shards a kernel along 'model' on a DeviceMesh with only a 'batch' axis.

label: strategy_scope
family: mesh_axis_not_in_mesh
source: NVIDIA/TransformerEngine
"""

import os

os.environ["KERAS_BACKEND"] = "jax"
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import keras
import numpy as np

mesh = keras.distribution.DeviceMesh((2,), ["batch"], keras.distribution.list_devices())
layout_map = keras.distribution.LayoutMap(mesh)
layout_map["dense.*kernel"] = (None, "model")
keras.distribution.set_distribution(
    keras.distribution.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
)

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, name="dense")])
model.compile("sgd", "mse")
model.fit(np.ones((4, 8)), np.ones((4, 4)), epochs=1, verbose=0)
