"""Worker 1 joins a JAX job with a coordinator address whose port nothing listens on.

label: connection_loss
family: coordinator_unreachable
"""

import jax

# copied from the launch script of the previous run; the coordinator now runs elsewhere
COORDINATOR = "127.0.0.1:1"

jax.distributed.initialize(
    coordinator_address=COORDINATOR, num_processes=2, process_id=1, initialization_timeout=5
)
print(jax.process_index(), jax.devices())
