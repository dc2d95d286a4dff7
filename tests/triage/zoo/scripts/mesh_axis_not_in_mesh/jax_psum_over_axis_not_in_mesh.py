"""psum inside shard_map over 'batch' while the mesh axis is called 'data'.

label: strategy_scope
family: mesh_axis_not_in_mesh
source: NVIDIA/TransformerEngine
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def grad_allreduce(g):
    return jax.lax.pmean(g, axis_name="batch")


f = jax.shard_map(grad_allreduce, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
print(jax.jit(f)(jnp.ones(4)))
