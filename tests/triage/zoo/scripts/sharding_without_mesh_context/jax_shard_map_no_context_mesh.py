"""jax.shard_map called without mesh= and outside any mesh context.

label: strategy_scope
family: sharding_without_mesh_context
why: the fix is running it under the mesh context (or passing mesh=)
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))


def local_loss(x):
    return jax.lax.pmean(jnp.mean(x**2), "data")


loss = jax.shard_map(local_loss, in_specs=P("data"), out_specs=P())
print(jax.jit(loss)(jnp.ones((8, 4))))
