"""The pytree given to Orbax includes the optax optimizer (functions) next to the parameters.

label: checkpoint
family: orbax_save_unsupported_leaf
source: google/orbax
"""

import os

import jax.numpy as jnp
import optax
import orbax.checkpoint as ocp

opt = optax.adam(1e-3)
params = {"w": jnp.ones(3)}
state = {"params": params, "opt_state": opt.init(params), "tx": opt}
with ocp.StandardCheckpointer() as c:
    c.save(os.path.abspath("ckpt"), state)
