"""Process 0 starts the coordinator but the other host of the 2-process job was never launched.

label: connection_loss
family: coordinator_peers_never_join
"""

import socket

import jax

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]

jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=0, initialization_timeout=5)
print("global devices:", jax.device_count())
