"""Gradient of jnp.linalg.norm at a zero vector (zero-initialised embedding) under jax_debug_nans.

label: nan_inf
family: debug_nans
"""

import flax.linen as nn
import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


class Normalised(nn.Module):
    @nn.compact
    def __call__(self, x):
        h = nn.Dense(8, kernel_init=nn.initializers.zeros)(x)
        return h / (jnp.linalg.norm(h, axis=-1, keepdims=True) + 1e-6)


model = Normalised()
x = jnp.ones((2, 4))
params = model.init(jax.random.key(0), x)
grads = jax.jit(jax.grad(lambda p: jnp.sum(model.apply(p, x))))(params)
print(jax.tree_util.tree_map(jnp.shape, grads))
