"""lax.dynamic_slice with a slice size computed from the data (the valid length) under jit.

label: compile_error
family: traced_value_as_shape
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def valid_prefix_mean(x, lengths):
    n = lengths[0]
    prefix = lax.dynamic_slice(x[0], (0,), (n,))
    return prefix.mean()


x = jnp.arange(20.0).reshape(2, 10)
print(valid_prefix_mean(x, jnp.array([7, 4])))
