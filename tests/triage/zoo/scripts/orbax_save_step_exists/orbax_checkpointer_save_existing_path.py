"""StandardCheckpointer.save to a directory that already holds a checkpoint.

label: checkpoint
family: orbax_save_step_exists
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

d = os.path.abspath("final")
with ocp.StandardCheckpointer() as c:
    c.save(d, {"w": jnp.ones(3)})
    c.wait_until_finished()
    c.save(d, {"w": jnp.ones(3) * 2})
    c.wait_until_finished()
