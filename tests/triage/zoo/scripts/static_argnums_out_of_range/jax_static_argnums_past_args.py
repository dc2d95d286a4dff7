"""jit static_argnums points past the last positional argument after a refactor.

label: compile_error
family: static_argnums_out_of_range
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


def step(params, batch):
    return jnp.sum(batch @ params)


train = jax.jit(step, static_argnums=(2,))
print(train(jnp.ones(3), jnp.ones((4, 3))))
