"""jax.sharding.reshard to a PartitionSpec between layers, without a mesh set.

label: strategy_scope
family: sharding_without_mesh_context
why: the fix is running the model under jax.set_mesh / use_mesh
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, reshard
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("model",))


@jax.jit
def two_layers(x, w1, w2):
    h = jnp.tanh(x @ w1)
    h = reshard(h, P(None, "model"))
    return h @ w2


print(two_layers(jnp.ones((4, 8)), jnp.ones((8, 16)), jnp.ones((16, 2))))
