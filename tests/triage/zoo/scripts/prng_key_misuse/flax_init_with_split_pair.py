"""Flax init called with the (2, ...) array returned by jax.random.split instead of one key.

label: unknown
family: prng_key_misuse
"""

import flax.linen as nn
import jax
import jax.numpy as jnp

keys = jax.random.split(jax.random.PRNGKey(0))
params = nn.Dense(4).init(keys, jnp.ones((1, 3)))
print(params)
