"""NamedSharding with a 2-axis PartitionSpec applied to a 1-D bias vector.

label: strategy_scope
family: invalid_sharding
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(1, 2), ("data", "model"))
weight_sharding = NamedSharding(mesh, P("data", "model"))
params = {"w": jnp.ones((8, 8)), "b": jnp.zeros((8,))}
init = jax.jit(lambda p: p, out_shardings={"w": weight_sharding, "b": weight_sharding})
print(init(params))
