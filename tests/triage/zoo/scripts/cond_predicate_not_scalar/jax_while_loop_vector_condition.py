"""lax.while_loop whose condition returns one flag per sample instead of a scalar.

label: compile_error
family: cond_predicate_not_scalar
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp
from jax import lax


def newton_sqrt(a):
    def cond(state):
        x, _ = state
        return jnp.abs(x * x - a) > 1e-3  # vector-valued

    def body(state):
        x, i = state
        return (x + a / x) / 2.0, i + 1

    return lax.while_loop(cond, body, (a, 0))


print(jax.jit(newton_sqrt)(jnp.array([2.0, 9.0, 16.0])))
