"""nn.Linear sized for 784 inputs receives flattened 32x32x3 images on the XLA device.

label: compile_error
family: dot_general_shape_mismatch
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla

device = torch_xla.device()
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10)).to(device)
print(model(torch.randn(8, 3, 32, 32, device=device)).cpu())
