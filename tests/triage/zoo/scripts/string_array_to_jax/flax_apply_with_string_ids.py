"""A Flax embedding model is applied to raw token strings instead of integer ids.

label: unsupported_dtype
family: string_array_to_jax
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

model = nn.Embed(100, 8)
params = model.init(jax.random.key(0), jnp.zeros((1, 4), jnp.int32))
tokens = np.array([["the", "cat", "sat", "down"]])
print(jax.jit(model.apply)(params, tokens))
