"""optax update called with gradients of a tree that lacks a parameter the state was initialised with.

label: compile_error
family: optax_update_tree_mismatch
source: erfanzar/EasyDeL
"""

import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.ones((3, 2)), "b": jnp.zeros(2), "scale": jnp.ones(())}
opt = optax.adamw(1e-3)
state = opt.init(params)


def loss(p, x):
    return jnp.sum(x @ p["w"] + p["b"])


trainable = {"w": params["w"], "b": params["b"]}
grads = jax.grad(loss)(trainable, jnp.ones((4, 3)))
updates, state = jax.jit(opt.update)(grads, state, params)
print(updates)
