"""Attention logits masked with -inf for a fully padded row give NaN after softmax; jax_debug_nans fires.

label: nan_inf
family: all_masked_attention
"""

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def attend(q, k, mask):
    logits = jnp.where(mask, q @ k.T, -jnp.inf)
    return jax.nn.softmax(logits, axis=-1)


mask = jnp.array([[True, True, False], [False, False, False]])
print(attend(jnp.ones((2, 4)), jnp.ones((3, 4)), mask))
