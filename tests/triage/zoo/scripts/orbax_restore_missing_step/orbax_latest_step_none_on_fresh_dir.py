"""Resume code restores mngr.latest_step() on a fresh directory where it is None.

label: checkpoint
family: orbax_restore_missing_step
source: cgarciae/ciclo
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

d = os.path.abspath("fresh_run")
with ocp.CheckpointManager(d) as mngr:
    state = mngr.restore(mngr.latest_step(), args=ocp.args.StandardRestore({"w": jnp.zeros(3)}))
print(state)
