"""Variable-length sequences packed as a torch.nested tensor on the XLA device.

label: unsupported_op
family: torchxla_op_without_lowering
source: pytorch/pytorch
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla

device = torch_xla.device()
batch = torch.nested.nested_tensor([torch.randn(3, 4), torch.randn(5, 4)], device=device)
print(batch.to_padded_tensor(0.0).sum().cpu())
