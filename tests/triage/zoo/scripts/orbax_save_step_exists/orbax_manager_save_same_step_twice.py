"""Resumed run saves step 0 again into a CheckpointManager directory that already holds it.

label: checkpoint
family: orbax_save_step_exists
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

d = os.path.abspath("ckpts")
for attempt in range(2):
    with ocp.CheckpointManager(d) as mngr:
        mngr.save(0, args=ocp.args.StandardSave({"w": jnp.ones(3) * attempt}), force=False)
        mngr.wait_until_finished()
        print("saved", attempt, mngr.all_steps())
with ocp.StandardCheckpointer() as c:
    c.save(os.path.join(d, "0", "default"), {"w": jnp.ones(3)})
