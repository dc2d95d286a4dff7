"""jnp.bincount of class ids inside jit without length=.

label: dynamic_shape
family: bincount_without_length
"""

import jax
import jax.numpy as jnp


@jax.jit
def class_counts(labels):
    return jnp.bincount(labels)


print(class_counts(jnp.array([0, 1, 1, 3])))
