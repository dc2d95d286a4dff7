"""CheckpointManager created on an hdfs:// directory.

label: local_filesystem
family: orbax_remote_scheme
"""

import jax.numpy as jnp
import orbax.checkpoint as ocp

with ocp.CheckpointManager("hdfs://namenode:8020/ckpts/run3") as mngr:
    mngr.save(0, args=ocp.args.StandardSave({"w": jnp.ones(3)}))
    mngr.wait_until_finished()
