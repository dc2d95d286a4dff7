"""Flax module branches in Python on whether any token is valid.

label: compile_error
family: python_if_on_traced_value
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class Pooler(nn.Module):
    @nn.compact
    def __call__(self, x, mask):
        if not jnp.any(mask):
            return jnp.zeros((x.shape[0], 32))
        x = nn.Dense(32)(x)
        return jnp.sum(x * mask[..., None], axis=1) / jnp.sum(mask, axis=1, keepdims=True)


x = jnp.ones((2, 5, 8))
mask = jnp.array([[1, 1, 0, 0, 0], [1, 0, 0, 0, 0]], jnp.float32)
model = Pooler()
variables = model.init(jax.random.key(0), x, mask)
print(jax.jit(model.apply)(variables, x, mask).shape)
