"""jax.distributed.initialize as process 0 on a coordinator port another job already holds.

label: connection_loss
family: coordinator_port_in_use
source: jax-ml/jax
"""

import socket

import jax

busy = socket.socket()
busy.bind(("127.0.0.1", 0))
busy.listen(1)
port = busy.getsockname()[1]
jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=1, process_id=0, initialization_timeout=5)
print(jax.devices())
