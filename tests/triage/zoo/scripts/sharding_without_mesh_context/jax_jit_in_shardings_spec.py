"""jax.jit(in_shardings=PartitionSpec(...)) called without entering the mesh.

label: strategy_scope
family: sharding_without_mesh_context
why: the fix is running it under the mesh context (or passing NamedShardings)
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))


def loss(params, batch):
    return jnp.mean((batch @ params) ** 2)


step = jax.jit(loss, in_shardings=(P(), P("data")))
print(step(jnp.ones((4, 1)), jnp.ones((8, 4))))
