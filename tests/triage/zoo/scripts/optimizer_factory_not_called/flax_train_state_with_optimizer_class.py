"""Flax TrainState.create given optax.sgd itself as tx.

label: unknown
family: optimizer_factory_not_called
source: jax-ml/jax
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training import train_state

model = nn.Dense(2)
params = model.init(jax.random.key(0), jnp.ones((1, 3)))["params"]
state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd)
print(state.step)
