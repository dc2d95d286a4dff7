"""with_sharding_constraint given a bare PartitionSpec outside any mesh context.

label: strategy_scope
family: sharding_without_mesh_context
why: the fix is calling it under the mesh (with jax.sharding.use_mesh / set_mesh) or a NamedSharding
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))


@jax.jit
def forward(x, w):
    h = x @ w
    h = jax.lax.with_sharding_constraint(h, P("data", None))
    return jnp.tanh(h)


print(forward(jnp.ones((8, 4)), jnp.ones((4, 4))).shape)
