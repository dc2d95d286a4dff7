"""jit out_shardings given for (params, opt_state) while the function returns three values.

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


def step(w, m, x):
    g = x.T @ (x @ w)
    m = 0.9 * m + g
    return w - 0.1 * m, m, jnp.sum(g)


train = jax.jit(step, out_shardings=(repl, repl))
print(train(jnp.ones((3, 1)), jnp.zeros((3, 1)), jnp.ones((4, 3))))
