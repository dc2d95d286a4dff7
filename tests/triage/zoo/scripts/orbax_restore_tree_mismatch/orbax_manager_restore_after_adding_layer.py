"""CheckpointManager restores step 0 into a model that gained a layer since the save.

label: checkpoint
family: orbax_restore_tree_mismatch
source: AI-Hypercomputer/maxtext
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

d = os.path.abspath("runs")
with ocp.CheckpointManager(d) as mngr:
    mngr.save(0, args=ocp.args.StandardSave({"dense1": jnp.ones((3, 3))}))
    mngr.wait_until_finished()
with ocp.CheckpointManager(d) as mngr:
    target = {"dense1": jnp.zeros((3, 3)), "dense2": jnp.zeros((3, 1))}
    state = mngr.restore(mngr.latest_step(), args=ocp.args.StandardRestore(target))
print(state)
