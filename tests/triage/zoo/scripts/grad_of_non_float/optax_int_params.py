"""Params initialised as integers (jnp.zeros with dtype=int) are updated with optax adam.

label: unsupported_dtype
family: grad_of_non_float
"""

import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.zeros((4, 2), dtype=jnp.int32), "b": jnp.zeros((2,), dtype=jnp.int32)}
tx = optax.adam(1e-3)
opt_state = tx.init(params)


def loss_fn(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)


@jax.jit
def step(p, s, x, y):
    grads = jax.grad(loss_fn)(p, x, y)
    updates, s = tx.update(grads, s, p)
    return optax.apply_updates(p, updates), s


params, opt_state = step(params, opt_state, jnp.ones((8, 4)), jnp.ones((8, 2)))
print(params)
