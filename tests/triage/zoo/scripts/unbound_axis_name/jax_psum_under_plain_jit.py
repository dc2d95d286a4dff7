"""lax.psum over axis 'batch' inside a function run under jit, not pmap/shard_map.

label: strategy_scope
family: unbound_axis_name
"""

import jax
import jax.numpy as jnp


@jax.jit
def global_mean_loss(x):
    local = jnp.mean(x**2)
    return jax.lax.psum(local, axis_name="batch") / jax.device_count()


print(global_mean_loss(jnp.ones((8, 4))))
