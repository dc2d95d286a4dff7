"""Gradient of a norm computed with sqrt at an all-zero vector, with jax_debug_nans on.

label: nan_inf
family: nan_grad_at_zero
"""

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


def loss(x):
    return jnp.sqrt(jnp.sum(x**2))


print(jax.jit(jax.grad(loss))(jnp.zeros(3)))
