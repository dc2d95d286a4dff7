"""Two hosts are launched but num_processes says 3, so registration never completes.

label: connection_loss
family: coordinator_peers_never_join
"""

import socket
import subprocess
import sys

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
addr = f"127.0.0.1:{port}"
NUM_PROCESSES = 3  # the slice has 2 hosts

other = subprocess.Popen(
    [
        sys.executable,
        "-c",
        f"import jax; jax.distributed.initialize('{addr}', {NUM_PROCESSES}, 1, initialization_timeout=5)",
    ],
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)

import jax

jax.distributed.initialize(addr, num_processes=NUM_PROCESSES, process_id=0, initialization_timeout=5)
print(jax.process_count())
