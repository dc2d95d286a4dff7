"""PartitionSpec names a mesh axis 'tensor' but the mesh axes are ('data', 'model').

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
x = jax.device_put(jnp.ones((4, 8)), NamedSharding(mesh, P(None, "tensor")))
print(x.sharding)
