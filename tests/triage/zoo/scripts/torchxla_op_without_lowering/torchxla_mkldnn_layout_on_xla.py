"""A CPU-tuned model path converts activations to the mkldnn layout while they live on the XLA device.

label: unsupported_op
family: torchxla_op_without_lowering
source: pytorch/xla
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla

device = torch_xla.device()
x = torch.randn(2, 8, device=device)
y = torch.nn.functional.relu(x.to_mkldnn())
print(y.to_dense().cpu())
