"""Training config dict passed as a static argument to a jitted Flax train step.

label: compile_error
family: static_argnums_unhashable
"""

from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp

model = nn.Dense(2)
params = model.init(jax.random.key(0), jnp.ones((1, 3)))


@partial(jax.jit, static_argnames=("config",))
def train_step(params, x, config):
    g = jax.grad(lambda p: jnp.mean(model.apply(p, x) ** 2))(params)
    return jax.tree_util.tree_map(lambda p, g: p - config["lr"] * g, params, g)


cfg = {"lr": 0.1, "warmup": 100}
print(train_step(params, jnp.ones((4, 3)), config=cfg))
