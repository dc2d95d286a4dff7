"""Resume asks Orbax for step 5000 (from the config) but the directory only has steps 100 and 200.

label: checkpoint
family: missing_checkpoint
"""

import os
import tempfile

import jax.numpy as jnp
import orbax.checkpoint as ocp

RESUME_STEP = 5000
mngr = ocp.CheckpointManager(os.path.join(tempfile.mkdtemp(), "ckpt"))
for step in (100, 200):
    mngr.save(step, args=ocp.args.StandardSave({"w": jnp.ones((2, 2)) * step}))
mngr.wait_until_finished()

state = mngr.restore(RESUME_STEP, args=ocp.args.StandardRestore({"w": jnp.zeros((2, 2))}))
print(state)
