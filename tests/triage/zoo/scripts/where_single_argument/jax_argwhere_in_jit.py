"""jnp.argwhere inside a jitted step to collect the indices of padding tokens.

label: dynamic_shape
family: where_single_argument
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.jit
def pad_positions(tokens):
    return jnp.argwhere(tokens == 0)


print(pad_positions(jnp.array([[5, 3, 0, 0], [7, 0, 0, 0]])))
