"""while_loop body appends to its carry array, changing its shape.

label: dynamic_shape
family: growing_loop_state_xla
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp
from jax import lax


def generate(tokens):
    def cond(t):
        return t.shape[0] < 10

    def body(t):
        return jnp.concatenate([t, t[-1:] + 1])

    return lax.while_loop(cond, body, tokens)


print(jax.jit(generate)(jnp.array([1])))
