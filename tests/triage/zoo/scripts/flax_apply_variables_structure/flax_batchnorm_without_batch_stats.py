"""A Flax model with BatchNorm is applied in training mode without mutable=['batch_stats'].

label: unknown
family: flax_apply_variables_structure
source: google/flax
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        return nn.BatchNorm(use_running_average=not train)(nn.Dense(4)(x))


m = Net()
variables = m.init(jax.random.key(0), jnp.ones((2, 3)), train=False)
print(m.apply(variables, jnp.ones((2, 3)), train=True))
