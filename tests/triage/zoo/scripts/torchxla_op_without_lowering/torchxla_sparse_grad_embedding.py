"""nn.Embedding(sparse=True) trained on the XLA device produces sparse gradients.

label: unsupported_op
family: torchxla_op_without_lowering
source: pytorch/xla
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla

device = torch_xla.device()
emb = torch.nn.Embedding(100, 8, sparse=True).to(device)
opt = torch.optim.SGD(emb.parameters(), lr=0.1)
loss = emb(torch.tensor([1, 5, 7], device=device)).sum()
loss.backward()
opt.step()
torch_xla.sync()
print(emb.weight.sum().cpu())
