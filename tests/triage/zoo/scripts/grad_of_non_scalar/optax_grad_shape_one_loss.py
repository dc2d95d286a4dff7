"""loss ends in a (1,)-shaped array from a Dense(1) head, so grad rejects it before optax ever updates.

label: compile_error
family: grad_of_non_scalar
source: patrick-kidger/equinox
"""

import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.ones((3, 1)), "b": jnp.zeros((1,))}
opt = optax.adam(1e-3)
state = opt.init(params)


def loss_fn(p, x, y):
    pred = x @ p["w"] + p["b"]
    return jnp.mean((pred - y) ** 2, axis=0)  # shape (1,)


@jax.jit
def step(p, s, x, y):
    g = jax.grad(loss_fn)(p, x, y)
    u, s = opt.update(g, s)
    return optax.apply_updates(p, u), s


print(step(params, state, jnp.ones((8, 3)), jnp.ones((8, 1))))
