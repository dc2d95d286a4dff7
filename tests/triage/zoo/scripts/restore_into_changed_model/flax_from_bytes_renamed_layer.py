"""flax.serialization.from_bytes into a model whose submodule was renamed.

label: checkpoint
family: restore_into_changed_model
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import serialization


class Encoder(nn.Module):
    name_of_proj: str

    @nn.compact
    def __call__(self, x):
        return nn.Dense(4, name=self.name_of_proj)(x)


x = jnp.ones((1, 3))
blob = serialization.to_bytes(Encoder("proj").init(jax.random.key(0), x))

target = Encoder("projection").init(jax.random.key(1), x)
params = serialization.from_bytes(target, blob)
print(params)
