"""MpDeviceLoader with an input_sharding over 4 devices and minibatch=True loads batches of 6.

label: strategy_scope
family: batch_not_divisible_by_mesh
source: pytorch/xla
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"
os.environ["CPU_NUM_DEVICES"] = "4"

import numpy as np
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.spmd as xs
import torch_xla.runtime as xr

xr.use_spmd()
n = xr.global_runtime_device_count()
mesh = xs.Mesh(np.arange(n), (n, 1), ("data", "model"))
ds = torch.utils.data.TensorDataset(torch.randn(24, 8))
loader = pl.MpDeviceLoader(
    torch.utils.data.DataLoader(ds, batch_size=6),
    torch_xla.device(),
    input_sharding=xs.ShardingSpec(mesh, ("data", None), minibatch=True),
)
for (x,) in loader:
    print(x.shape)
