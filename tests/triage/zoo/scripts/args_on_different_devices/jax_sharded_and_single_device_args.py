"""A mesh-sharded batch and a PRNG key committed to one device meet in one jitted call.

label: strategy_scope
family: args_on_different_devices
source: marin-community/marin
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2,), ("data",))
x = jax.device_put(jnp.ones((4, 3)), NamedSharding(mesh, P("data")))
key = jax.device_put(jax.random.key(0), jax.devices()[1])


@jax.jit
def dropout(x, key):
    keep = jax.random.bernoulli(key, 0.9, x.shape)
    return jnp.where(keep, x / 0.9, 0.0)


print(dropout(x, key))
