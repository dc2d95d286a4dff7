"""Orbax saves under a path on a read-only pseudo file system (/proc), e.g. from a bad env var.

label: checkpoint
family: unwritable_checkpoint_dir
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

CKPT_DIR = os.environ.get("CKPT_DIR", "/proc/self/checkpoints")
ckptr = ocp.PyTreeCheckpointer()
ckptr.save(os.path.join(CKPT_DIR, "step_0"), {"w": jnp.ones((3, 3))})
