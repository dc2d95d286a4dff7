"""StandardCheckpointer.restore on a path that was never written (a typo in the run name).

label: checkpoint
family: orbax_restore_missing_step
source: google/orbax
"""

import os

import jax.numpy as jnp
import orbax.checkpoint as ocp

os.makedirs("runs/exp-1", exist_ok=True)
with ocp.StandardCheckpointer() as c:
    print(c.restore(os.path.abspath("runs/exp1/step_1000"), {"w": jnp.zeros(3)}))
