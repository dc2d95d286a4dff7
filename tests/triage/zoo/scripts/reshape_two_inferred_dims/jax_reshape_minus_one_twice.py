"""A reshape to (-1, -1, heads) inside a jitted attention step.

label: compile_error
family: reshape_two_inferred_dims
"""

import jax
import jax.numpy as jnp


@jax.jit
def split_heads(x):
    return jnp.reshape(x, (-1, -1, 4))


print(split_heads(jnp.ones((2, 8, 16))).shape)
