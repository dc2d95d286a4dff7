"""jax.grad over a loss that returns one value per example (mean forgotten).

label: compile_error
family: grad_of_non_scalar
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


def loss(w, x, y):
    return (x @ w - y) ** 2


print(jax.grad(loss)(jnp.ones(3), jnp.ones((8, 3)), jnp.zeros(8)))
