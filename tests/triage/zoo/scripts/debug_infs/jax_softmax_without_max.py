"""Softmax written as exp(x)/sum(exp(x)) on large logits overflows (inf/inf), caught by jax_debug_infs + jax_debug_nans.

label: nan_inf
family: debug_infs
"""

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_infs", True)
jax.config.update("jax_debug_nans", True)


@jax.jit
def softmax(logits):
    e = jnp.exp(logits)
    return e / jnp.sum(e, axis=-1, keepdims=True)


print(softmax(jnp.array([[10.0, 95.0, 120.0]])))
