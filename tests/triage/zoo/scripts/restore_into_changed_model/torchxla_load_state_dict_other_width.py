"""A state_dict saved with xm.save for a 256-wide layer is loaded into a 512-wide model.

label: checkpoint
family: restore_into_changed_model
"""

import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch
import torch_xla
import torch_xla.core.xla_model as xm

device = torch_xla.device()
xm.save(torch.nn.Linear(16, 256).to(device).state_dict(), "model.pt")
model = torch.nn.Linear(16, 512).to(device)
model.load_state_dict(torch.load("model.pt"))
