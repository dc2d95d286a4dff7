"""Flax params initialised with 16 features, applied to a batch with 20 features.

label: compile_error
family: dot_general_shape_mismatch
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class Head(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(4)(nn.relu(nn.Dense(32)(x)))


model = Head()
params = model.init(jax.random.key(0), jnp.ones((1, 16)))
print(jax.jit(model.apply)(params, jnp.ones((8, 20))).shape)
