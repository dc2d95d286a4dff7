"""A masked mean loss divides by the mask sum, which is zero for an all-padding batch; jax_debug_nans fires.

label: nan_inf
family: masked_mean_empty_mask
"""

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def masked_mse(pred, target, mask):
    return jnp.sum(((pred - target) ** 2) * mask) / jnp.sum(mask)


print(masked_mse(jnp.ones(4), jnp.zeros(4), jnp.zeros(4)))
