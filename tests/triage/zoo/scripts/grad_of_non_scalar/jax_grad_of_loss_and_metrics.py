"""loss function returns (loss, metrics) but grad is called without has_aux=True.

label: compile_error
family: grad_of_non_scalar
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


def loss_fn(w, x, y):
    err = x @ w - y
    loss = jnp.mean(err**2)
    return loss, {"mae": jnp.mean(jnp.abs(err))}


@jax.jit
def train_step(w, x, y):
    g = jax.grad(loss_fn)(w, x, y)
    return w - 0.1 * g


print(train_step(jnp.ones(3), jnp.ones((8, 3)), jnp.zeros(8)))
