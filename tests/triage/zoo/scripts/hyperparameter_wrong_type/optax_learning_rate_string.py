"""A learning rate read from a YAML config as the string '1e-3' is passed to optax.adam.

label: unknown
family: hyperparameter_wrong_type
"""

import jax
import jax.numpy as jnp
import optax

config = {"learning_rate": "1e-3"}
opt = optax.adam(config["learning_rate"])
params = jnp.ones(3)
state = opt.init(params)
updates, state = opt.update(jax.grad(lambda p: jnp.sum(p**2))(params), state)
print(updates)
