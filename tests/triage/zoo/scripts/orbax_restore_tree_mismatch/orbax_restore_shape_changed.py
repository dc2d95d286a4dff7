"""Orbax restores an embedding saved with a 1000-word vocabulary into a 1200-word target.

label: checkpoint
family: orbax_restore_tree_mismatch
source: AI-Hypercomputer/maxtext
"""

import os

import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp

d = os.path.abspath("emb")
with ocp.StandardCheckpointer() as c:
    c.save(d, {"embedding": jnp.ones((1000, 16))})
with ocp.StandardCheckpointer() as c:
    abstract = {"embedding": jax.ShapeDtypeStruct((1200, 16), jnp.float32)}
    print(c.restore(d, abstract)["embedding"].shape)
