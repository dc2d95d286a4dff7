"""with_sharding_constraint with a NamedSharding of the outer mesh called inside a shard_map body.

label: strategy_scope
family: sharding_constraint_under_shard_map
source: NVIDIA/TransformerEngine
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))


def body(x):
    y = jnp.tanh(x)
    return jax.lax.with_sharding_constraint(y, NamedSharding(mesh, P("data")))


f = jax.shard_map(body, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
print(jax.jit(f)(jnp.ones((4, 2))))
