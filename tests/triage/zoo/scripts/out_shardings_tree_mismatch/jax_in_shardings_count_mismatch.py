"""jit in_shardings lists two shardings for a step that takes three arguments.

label: strategy_scope
family: out_shardings_tree_mismatch
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((2,), ("data",))
repl = NamedSharding(mesh, P())
data = NamedSharding(mesh, P("data"))
step = jax.jit(lambda w, x, y: jnp.mean((x @ w - y) ** 2), in_shardings=(repl, data))
print(step(jnp.ones(3), jnp.ones((4, 3)), jnp.ones(4)))
