"""with_sharding_constraint asks for a 'fsdp' axis that the training mesh was built without.

label: strategy_scope
family: mesh_axis_not_in_mesh
source: NVIDIA/TransformerEngine
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2, 2), ("data", "model"))


@jax.jit
def layer(x, w):
    h = x @ w
    return jax.lax.with_sharding_constraint(h, NamedSharding(mesh, P("fsdp", None)))


print(layer(jnp.ones((8, 4)), jnp.ones((4, 4))))
