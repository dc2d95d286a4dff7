"""jnp.relu used instead of jax.nn.relu.

label: unknown
family: attribute_typo
"""

import jax
import jax.numpy as jnp


@jax.jit
def mlp(w1, w2, x):
    return jnp.relu(x @ w1) @ w2


print(mlp(jnp.ones((4, 8)), jnp.ones((8, 2)), jnp.ones((3, 4))))
