"""shard_map in_specs name an axis 'model' on a mesh that only has 'data'.

label: strategy_scope
family: mesh_axis_not_in_mesh
source: NVIDIA/TransformerEngine
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def local_sum(x):
    return jax.lax.psum(x.sum(), "data")


f = jax.shard_map(local_sum, mesh=mesh, in_specs=P("model"), out_specs=P())
print(jax.jit(f)(jnp.ones(8)))
