"""lax.cond branches return different shapes (pooled vs unpooled features).

label: compile_error
family: cond_branches_differ
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def features(x, use_pool):
    return lax.cond(use_pool, lambda x: x.mean(axis=1), lambda x: x, x)


print(features(jnp.ones((2, 8, 4)), True))
