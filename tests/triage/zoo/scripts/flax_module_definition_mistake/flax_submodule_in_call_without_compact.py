"""nn.Dense created inside __call__ of a Flax module that lacks @nn.compact.

label: unknown
family: flax_module_definition_mistake
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class MLP(nn.Module):
    def __call__(self, x):
        return nn.Dense(4)(x)


print(MLP().init(jax.random.key(0), jnp.ones((1, 3))))
