"""xs.mark_sharding names a 'model' axis on a mesh whose axes are ('data', 'fsdp').

label: strategy_scope
family: mesh_axis_not_in_mesh
source: NVIDIA/TransformerEngine
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"
os.environ["CPU_NUM_DEVICES"] = "4"

import numpy as np
import torch
import torch_xla
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr

xr.use_spmd()
n = xr.global_runtime_device_count()
mesh = xs.Mesh(np.arange(n), (n, 1), ("data", "fsdp"))
w = torch.randn(8, 8).to(torch_xla.device())
xs.mark_sharding(w, mesh, ("data", "model"))
print(w.sum().cpu())
