"""Positions computed with a division (float) used to index an array inside jit.

label: unsupported_dtype
family: float_indices
"""

import jax
import jax.numpy as jnp


@jax.jit
def middle_token(hidden, lengths):
    mid = lengths / 2  # float32
    return hidden[jnp.arange(hidden.shape[0]), mid]


print(middle_token(jnp.ones((2, 10, 4)), jnp.array([6, 9])))
