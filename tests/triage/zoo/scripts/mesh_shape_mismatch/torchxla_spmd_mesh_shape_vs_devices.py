"""PyTorch/XLA SPMD mesh declared as (2, 4) on a host with 4 devices.

label: strategy_scope
family: mesh_shape_mismatch
source: jax-ml/jax
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"
os.environ["CPU_NUM_DEVICES"] = "4"

import numpy as np
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr

xr.use_spmd()
n = xr.global_runtime_device_count()
mesh = xs.Mesh(np.arange(n), (2, 4), ("data", "model"))
print(mesh)
