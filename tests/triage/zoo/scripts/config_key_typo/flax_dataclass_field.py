"""Flax module built from **config where the config has a key the module has no field for.

label: unknown
family: config_key_typo
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class Transformer(nn.Module):
    num_layers: int
    d_model: int
    num_heads: int

    @nn.compact
    def __call__(self, x):
        for _ in range(self.num_layers):
            x = x + nn.SelfAttention(num_heads=self.num_heads)(x)
        return x


config = {"num_layers": 2, "d_model": 64, "n_heads": 4}
model = Transformer(**config)
print(model.init(jax.random.key(0), jnp.ones((1, 8, 64))))
