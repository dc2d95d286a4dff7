"""A sparse COO embedding-bag input built directly on the XLA device.

label: unsupported_op
family: torchxla_op_without_lowering
source: pytorch/xla
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla

device = torch_xla.device()
indices = torch.tensor([[0, 2, 5]])
values = torch.tensor([1.0, 1.0, 1.0])
bag = torch.sparse_coo_tensor(indices, values, (8,), device=device)
weights = torch.randn(8, 4, device=device)
print((bag.to_dense() @ weights).cpu())
