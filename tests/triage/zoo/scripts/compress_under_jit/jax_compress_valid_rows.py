"""jnp.compress keeps valid rows of a batch inside jit.

label: dynamic_shape
family: compress_under_jit
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.jit
def valid_rows(x, valid):
    return jnp.compress(valid, x, axis=0).mean(0)


print(valid_rows(jnp.ones((4, 3)), jnp.array([True, False, True, True])))
