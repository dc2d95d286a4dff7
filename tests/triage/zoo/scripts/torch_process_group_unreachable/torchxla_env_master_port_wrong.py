"""Rank 1 reads MASTER_ADDR/MASTER_PORT for a master launched on another port; init_process_group times out.

label: connection_loss
family: torch_process_group_unreachable
source: pytorch/pytorch
"""

import datetime
import os

os.environ["PJRT_DEVICE"] = "CPU"
os.environ["MASTER_ADDR"] = "127.0.0.1"
os.environ["MASTER_PORT"] = "29537"

import torch.distributed as dist

dist.init_process_group("gloo", rank=1, world_size=2, timeout=datetime.timedelta(seconds=5))
