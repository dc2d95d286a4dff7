"""Orbax CheckpointManager given an hdfs:// directory.

label: local_filesystem
family: checkpoint_dir_unsupported_scheme
why: the checkpoint code is fine; the storage scheme is what the user must change
"""

import jax.numpy as jnp
import orbax.checkpoint as ocp

params = {"w": jnp.ones((4, 4)), "b": jnp.zeros((4,))}
mngr = ocp.CheckpointManager(
    "hdfs://namenode:8020/user/ml/runs/exp42/ckpt",
    options=ocp.CheckpointManagerOptions(max_to_keep=2, create=True),
)
mngr.save(0, args=ocp.args.StandardSave(params))
mngr.wait_until_finished()
