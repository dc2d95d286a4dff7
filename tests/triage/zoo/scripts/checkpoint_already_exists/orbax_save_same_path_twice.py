"""A rerun saves to the same Orbax checkpoint path as the previous run.

label: checkpoint
family: checkpoint_already_exists
"""

import os
import tempfile

import jax.numpy as jnp
import orbax.checkpoint as ocp

path = os.path.join(tempfile.mkdtemp(), "final")
ckptr = ocp.StandardCheckpointer()
for run in range(2):  # the second run reuses the same output path
    ckptr.save(path, {"w": jnp.ones((2, 2)) * run})
    ckptr.wait_until_finished()
    print("saved run", run)
