"""A model cast with .half() on the XLA device; the loop prints loss inf and raises.

label: nan_inf
family: float16_loss_inf
source: tensorflow/tensorflow
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla

device = torch_xla.device()
model = torch.nn.Linear(512, 1).to(device).half()
torch.nn.init.constant_(model.weight, 1.0)
x = torch.full((64, 512), 200.0, device=device, dtype=torch.float16)
loss = (model(x) ** 2).sum()
value = loss.item()
print(f"step 0 loss {value}")
if value != value or value in (float("inf"), float("-inf")):
    raise FloatingPointError(f"loss {value}: float16 overflow")
