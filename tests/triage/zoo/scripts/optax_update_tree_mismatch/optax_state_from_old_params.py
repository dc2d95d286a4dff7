"""Optimizer state restored from a run with another model is used to update the new model's gradients.

label: compile_error
family: optax_update_tree_mismatch
source: marin-community/marin
"""

import jax
import jax.numpy as jnp
import optax

opt = optax.adam(1e-3)
old_state = opt.init({"w": jnp.ones((8, 8))})
params = {"w": jnp.ones((8, 4))}
grads = jax.tree.map(jnp.ones_like, params)
updates, _ = jax.jit(opt.update)(grads, old_state, params)
print(updates)
