"""optax.adam (the factory) is used as the optimizer without being called.

label: unknown
family: optimizer_factory_not_called
source: jax-ml/jax
"""

import jax.numpy as jnp
import optax

tx = optax.adam
params = {"w": jnp.ones(3)}
state = tx.init(params)
print(state)
