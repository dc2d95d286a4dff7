"""CheckpointManager.restore asked for step 500 when only step 100 was saved.

label: checkpoint
family: orbax_restore_missing_step
source: google/orbax
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

d = os.path.abspath("ckpts")
with ocp.CheckpointManager(d) as mngr:
    mngr.save(100, args=ocp.args.StandardSave({"w": jnp.ones(3)}))
    mngr.wait_until_finished()
    print(mngr.restore(500, args=ocp.args.StandardRestore({"w": jnp.zeros(3)})))
