"""A Flax module gathers active experts with jnp.flatnonzero under jit.

label: dynamic_shape
family: where_single_argument
source: jax-ml/jax
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class Router(nn.Module):
    @nn.compact
    def __call__(self, x):
        gates = nn.Dense(8)(x).mean(0)
        active = jnp.flatnonzero(gates > 0)
        return nn.Dense(8)(x)[:, active]


m = Router()
params = m.init(jax.random.key(0), jnp.ones((2, 4)))
print(jax.jit(m.apply)(params, jnp.ones((2, 4))))
