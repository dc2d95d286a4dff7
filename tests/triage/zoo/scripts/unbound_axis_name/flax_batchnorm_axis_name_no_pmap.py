"""Flax BatchNorm with axis_name='batch' (copied from a pmap trainer) used under plain jit.

label: strategy_scope
family: unbound_axis_name
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(8)(x)
        x = nn.BatchNorm(use_running_average=not train, axis_name="batch")(x)
        return nn.Dense(1)(x)


model = Net()
variables = model.init(jax.random.key(0), jnp.ones((4, 3)), train=False)


@jax.jit
def train_forward(variables, x):
    return model.apply(variables, x, train=True, mutable=["batch_stats"])


print(train_forward(variables, jnp.ones((4, 3)))[0].shape)
