"""lax.dynamic_slice_in_dim with a slice size that is a traced argument.

label: compile_error
family: traced_slice_length
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def crop(x, start, size):
    return lax.dynamic_slice_in_dim(x, start, size)


print(crop(jnp.arange(32.0), 4, 8))
