"""shard_map in_specs describe 3 dims for a 2-D batch (spec copied from the image model).

label: strategy_scope
family: shard_map_out_specs_wrong
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))
f = jax.shard_map(lambda x: x * 2, mesh=mesh, in_specs=P("data", None, None), out_specs=P("data", None, None))
print(jax.jit(f)(jnp.ones((8, 16))))
