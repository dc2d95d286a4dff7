"""fori_loop starts with an int accumulator and the body adds a float to it.

label: compile_error
family: fori_loop_carry_mismatch
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def total(x):
    return lax.fori_loop(0, x.shape[0], lambda i, acc: acc + x[i] * 0.5, jnp.int32(0))


print(total(jnp.arange(5.0)))
