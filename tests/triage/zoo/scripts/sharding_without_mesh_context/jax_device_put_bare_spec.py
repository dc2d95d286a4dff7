"""Batch placed with jax.device_put(batch, PartitionSpec('data')) outside the mesh context.

label: strategy_scope
family: sharding_without_mesh_context
why: the fix is placing it under the mesh context (or with a NamedSharding)
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))
batch = np.random.rand(16, 32).astype("float32")
sharded = jax.device_put(batch, P("data"))
print(sharded.sharding)
