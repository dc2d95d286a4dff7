"""jnp.transpose given a 3-axis permutation for a 4-D multi-head tensor inside jit.

label: compile_error
family: transpose_perm_rank
"""

import jax
import jax.numpy as jnp


@jax.jit
def heads_first(x):
    return jnp.transpose(x, (0, 2, 1))


print(heads_first(jnp.ones((2, 8, 4, 16))).shape)
