"""torch.distributed TCPStore client waits for a master that never starts, with a 5 s timeout.

label: connection_loss
family: rpc_deadline_exceeded
source: grpc/grpc
"""

import datetime
import os

os.environ["PJRT_DEVICE"] = "CPU"

import torch.distributed as dist

store = dist.TCPStore(
    "127.0.0.1", 29531, world_size=2, is_master=False, timeout=datetime.timedelta(seconds=5)
)
print(store.get("ready"))
