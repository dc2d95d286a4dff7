"""jnp.histogram with a number of bins computed from the data inside jit.

label: dynamic_shape
family: bincount_without_length
"""

import jax
import jax.numpy as jnp


@jax.jit
def hist(x):
    n_bins = jnp.maximum(4, jnp.sqrt(x.shape[0]).astype(jnp.int32))
    return jnp.histogram(x, bins=n_bins)[0]


print(hist(jnp.linspace(0, 1, 100)))
