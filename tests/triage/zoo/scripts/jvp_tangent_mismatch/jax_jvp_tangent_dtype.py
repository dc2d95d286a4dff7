"""jax.jvp called with integer tangents for float primals.

label: compile_error
family: jvp_tangent_mismatch
"""

import jax
import jax.numpy as jnp


def f(x):
    return jnp.sin(x) * x


print(jax.jvp(f, (jnp.ones(3),), (jnp.ones(3, jnp.int32),)))
