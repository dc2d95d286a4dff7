"""Train state saved with optax.adam is restored into a state built with optax.sgd(momentum).

label: checkpoint
family: optimizer_state_mismatch
"""

import os
import tempfile

import jax
import jax.numpy as jnp
import optax
import orbax.checkpoint as ocp

params = {"w": jnp.ones((4, 2))}
state = {"params": params, "opt_state": optax.adam(1e-3).init(params), "step": 10}
mngr = ocp.CheckpointManager(os.path.join(tempfile.mkdtemp(), "run"))
mngr.save(10, args=ocp.args.StandardSave(state))
mngr.wait_until_finished()

new_state = {"params": params, "opt_state": optax.sgd(1e-2, momentum=0.9).init(params), "step": 0}
abstract = jax.tree_util.tree_map(ocp.utils.to_shape_dtype_struct, new_state)
restored = mngr.restore(10, args=ocp.args.StandardRestore(abstract))
print(restored["step"])
