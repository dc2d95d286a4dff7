"""Old Flax example uses flax.optim, which was replaced by optax.

label: unknown
family: removed_api_import
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import optim

params = nn.Dense(2).init(jax.random.key(0), jnp.ones((1, 3)))
optimizer = optim.Adam(learning_rate=1e-3).create(params)
