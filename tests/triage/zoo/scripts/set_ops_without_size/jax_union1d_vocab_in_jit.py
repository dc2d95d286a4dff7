"""jnp.union1d merges the batch vocabulary inside a jitted function.

label: dynamic_shape
family: set_ops_without_size
"""

import jax
import jax.numpy as jnp


@jax.jit
def batch_vocab(a, b):
    return jnp.union1d(a, b).shape[0]


print(batch_vocab(jnp.array([1, 2, 3]), jnp.array([3, 9])))
