"""init_process_group with a tcp:// init method whose master address refuses connections, under PyTorch/XLA.

label: connection_loss
family: torch_process_group_unreachable
source: pytorch/pytorch
"""

import datetime
import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch.distributed as dist

dist.init_process_group(
    "gloo", init_method="tcp://127.0.0.1:29533", rank=1, world_size=2, timeout=datetime.timedelta(seconds=5)
)
print("joined")
