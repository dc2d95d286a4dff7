"""shard_map splits an array of 10 rows over a mesh axis of 4 devices.

label: strategy_scope
family: batch_not_divisible_by_mesh
source: Physical-Intelligence/openpi
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("data",))
f = jax.shard_map(lambda x: x * 2, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
print(jax.jit(f)(jnp.ones((10, 3))))
