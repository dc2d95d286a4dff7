"""A loss takes the log of a negative value with jax_debug_nans on.

label: nan_inf
family: log_of_zero
"""

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def loss(x):
    return jnp.sum(jnp.log(x))


loss(jnp.array([1.0, -1.0]))
