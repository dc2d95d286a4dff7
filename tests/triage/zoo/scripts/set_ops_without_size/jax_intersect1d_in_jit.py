"""jnp.intersect1d of two id lists inside jit, without size=.

label: dynamic_shape
family: set_ops_without_size
"""

import jax
import jax.numpy as jnp


@jax.jit
def shared(a, b):
    return jnp.intersect1d(a, b)


print(shared(jnp.array([1, 2, 3, 4]), jnp.array([3, 4, 5])))
