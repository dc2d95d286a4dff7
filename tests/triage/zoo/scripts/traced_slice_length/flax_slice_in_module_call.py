"""Flax module slices its input with a length passed through apply under jit.

label: compile_error
family: traced_slice_length
source: jax-ml/jax
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class Truncate(nn.Module):
    @nn.compact
    def __call__(self, x, keep):
        return nn.Dense(4)(x[:, :keep])


m = Truncate()
params = m.init(jax.random.key(0), jnp.ones((2, 8)), 8)
print(jax.jit(m.apply)(params, jnp.ones((2, 8)), 6))
