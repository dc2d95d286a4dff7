"""lax.scan accumulator starts as an int 0 but the body adds float losses to it.

label: compile_error
family: scan_carry_type_changes
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def total_loss(xs):
    def body(acc, x):
        return acc + jnp.mean(x**2), None

    acc, _ = lax.scan(body, jnp.zeros((), jnp.int32), xs)
    return acc


print(total_loss(jnp.ones((10, 4))))
