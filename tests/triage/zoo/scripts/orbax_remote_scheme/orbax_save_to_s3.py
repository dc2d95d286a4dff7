"""Orbax StandardCheckpointer.save pointed at an s3:// path (no S3 support in this install).

label: local_filesystem
family: orbax_remote_scheme
"""

import jax.numpy as jnp
import orbax.checkpoint as ocp

with ocp.StandardCheckpointer() as c:
    c.save("s3://team-bucket/runs/exp1/step_100", {"w": jnp.ones(3)})
