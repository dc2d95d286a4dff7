"""A jitted function stashes an intermediate in a global, used after the trace ends.

label: compile_error
family: leaked_tracer
"""

import jax
import jax.numpy as jnp

saved = []


@jax.jit
def forward(x):
    h = jnp.sin(x)
    saved.append(h)
    return h * 2


forward(jnp.ones(3))
jnp.sum(saved[0] + 1)
