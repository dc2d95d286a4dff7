"""Orbax restores a checkpoint saved with params/opt_state into a target tree whose keys were renamed.

label: checkpoint
family: orbax_restore_tree_mismatch
source: AI-Hypercomputer/maxtext
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

ckpt = os.path.abspath("ckpt_tree")
with ocp.StandardCheckpointer() as c:
    c.save(ckpt, {"params": {"w": jnp.ones((4, 4))}, "opt_state": {"mu": jnp.zeros((4, 4))}})
with ocp.StandardCheckpointer() as c:
    target = {"model": {"w": jnp.zeros((4, 4))}, "optimizer": {"mu": jnp.zeros((4, 4))}}
    restored = c.restore(ckpt, target)
print(restored)
