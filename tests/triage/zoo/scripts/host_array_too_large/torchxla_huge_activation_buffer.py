"""A (200k x 200k) float32 random buffer allocated on the XLA device under an 8 GiB address-space limit.

label: oom
family: host_array_too_large
"""

import os
import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla

device = torch_xla.device()
cache = torch.randn(200_000, 200_000, device=device)
print(cache.sum().cpu())
