"""shard_map out_specs=P() (replicated) for a per-shard partial sum that was never psum'd.

label: strategy_scope
family: shard_map_out_specs_wrong
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))


def local_sum(x):
    return jnp.sum(x)  # forgot lax.psum(..., "data")


total = jax.jit(jax.shard_map(local_sum, mesh=mesh, in_specs=P("data"), out_specs=P()))
print(total(jnp.arange(8.0)))
