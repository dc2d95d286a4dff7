"""A jitted train step with in_shardings over 'data' receives a batch that does not divide by the axis size.

label: strategy_scope
family: batch_not_divisible_by_mesh
source: marin-community/levanter
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("data",))
data = NamedSharding(mesh, P("data"))
repl = NamedSharding(mesh, P())


def step(w, x):
    return w - 0.01 * (x.T @ (x @ w))


train = jax.jit(step, in_shardings=(repl, data), out_shardings=repl)
print(train(jnp.ones((3, 1)), jnp.ones((30, 3))))
