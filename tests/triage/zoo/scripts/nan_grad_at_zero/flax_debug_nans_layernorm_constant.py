"""Flax model normalises by a hand-written std of a constant row; jax_debug_nans catches the NaN.

label: nan_inf
family: nan_grad_at_zero
"""

import flax.linen as nn
import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


class Norm(nn.Module):
    @nn.compact
    def __call__(self, x):
        std = jnp.sqrt(jnp.var(x, axis=-1, keepdims=True))
        return nn.Dense(2)((x - x.mean(-1, keepdims=True)) / std)


m = Norm()
params = m.init(jax.random.key(0), jnp.arange(4.0)[None])
print(jax.jit(m.apply)(params, jnp.ones((2, 4))))
