"""jnp.setdiff1d inside a jitted negative-sampling step, without size=.

label: dynamic_shape
family: set_ops_without_size
"""

import jax
import jax.numpy as jnp


@jax.jit
def negatives(all_ids, positives):
    return jnp.setdiff1d(all_ids, positives)


print(negatives(jnp.arange(10), jnp.array([2, 5])))
