"""lax.fori_loop carry initialised with a Python float then updated with a bfloat16 array.

label: compile_error
family: scan_carry_type_changes
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def power_iteration(m):
    v0 = jnp.ones((m.shape[0],), jnp.float32)

    def body(i, v):
        v = (m @ v).astype(jnp.bfloat16)
        return v / jnp.linalg.norm(v)

    return lax.fori_loop(0, 20, body, v0)


print(power_iteration(jnp.eye(4, dtype=jnp.bfloat16)))
