"""vmap given in_axes for two arguments while the function takes three.

label: compile_error
family: vmap_in_axes_length
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


def loss(params, x, y):
    return jnp.mean((x @ params - y) ** 2)


per_example = jax.vmap(loss, in_axes=(None, 0))
print(per_example(jnp.ones(3), jnp.ones((8, 3)), jnp.ones(8)))
