"""create_train_state() builds the state but does not return it.

label: unknown
family: function_missing_return
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training import train_state


def create_train_state(rng):
    model = nn.Dense(2)
    params = model.init(rng, jnp.ones((1, 3)))
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(0.1))


state = create_train_state(jax.random.key(0))
print(state.step)
