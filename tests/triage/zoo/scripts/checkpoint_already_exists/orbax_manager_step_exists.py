"""A resumed job restarts its step counter at 0 and asks Orbax to save a step that already exists.

label: checkpoint
family: checkpoint_already_exists
"""

import os
import tempfile

import jax.numpy as jnp
import orbax.checkpoint as ocp

ckpt_dir = os.path.join(tempfile.mkdtemp(), "ckpts")
first = ocp.CheckpointManager(ckpt_dir, options=ocp.CheckpointManagerOptions(save_interval_steps=1))
first.save(0, args=ocp.args.StandardSave({"w": jnp.ones(3)}))
first.wait_until_finished()
first.close()

resumed = ocp.CheckpointManager(ckpt_dir, options=ocp.CheckpointManagerOptions(save_interval_steps=1))
resumed.save(0, args=ocp.args.StandardSave({"w": jnp.zeros(3)}), force=True)
resumed.wait_until_finished()
