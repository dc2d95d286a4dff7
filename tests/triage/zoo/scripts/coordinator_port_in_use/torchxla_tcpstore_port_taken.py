"""The rank-0 TCPStore of a PyTorch/XLA job binds a master port that a stale run still holds.

label: connection_loss
family: coordinator_port_in_use
source: jax-ml/jax
"""

import datetime
import os
import socket

os.environ["PJRT_DEVICE"] = "CPU"

import torch.distributed as dist

busy = socket.socket()
busy.bind(("127.0.0.1", 0))
busy.listen(1)
port = busy.getsockname()[1]
store = dist.TCPStore(
    "127.0.0.1", port, world_size=1, is_master=True, timeout=datetime.timedelta(seconds=5), use_libuv=False
)
print(store)
