"""The train state saved with Orbax carries the run name as a Python string leaf.

label: checkpoint
family: orbax_save_unsupported_leaf
source: google/orbax
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

state = {"params": {"w": jnp.ones(3)}, "step": 10, "run_name": "exp-42"}
with ocp.StandardCheckpointer() as c:
    c.save(os.path.abspath("ckpt"), state)
