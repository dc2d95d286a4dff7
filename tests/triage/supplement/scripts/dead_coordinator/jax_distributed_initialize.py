"""A worker starts before (or without) the coordinator it must join.

label: connection_loss
family: dead_coordinator
"""

import socket

import jax

s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
jax.distributed.initialize(
    coordinator_address=f"127.0.0.1:{port}", num_processes=2, process_id=1, initialization_timeout=3
)
