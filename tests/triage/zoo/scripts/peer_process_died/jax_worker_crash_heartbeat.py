"""Host 1 of a 2-process JAX job crashes mid-training; host 0 keeps stepping until heartbeats stop.

label: connection_loss
family: peer_process_died
"""

import socket
import subprocess
import sys
import time

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
addr = f"127.0.0.1:{port}"

# host 1: joins, trains a little, then dies (a preempted VM looks the same from here)
peer = subprocess.Popen(
    [
        sys.executable,
        "-c",
        f"""
import jax, os, time
jax.distributed.initialize('{addr}', num_processes=2, process_id=1, heartbeat_timeout_seconds=5)
time.sleep(3)
os._exit(1)
""",
    ]
)

import jax
import jax.numpy as jnp

jax.distributed.initialize(
    addr, num_processes=2, process_id=0, initialization_timeout=30, heartbeat_timeout_seconds=5
)
print("process", jax.process_index(), "of", jax.process_count(), flush=True)
w = jnp.zeros((128, 128))
for step in range(60):
    w = w + 0.01
    print("step", step, float(w.mean()), flush=True)
    time.sleep(1)
