"""Hessian-vector product built with jvp where the vector has the wrong length.

label: compile_error
family: jvp_tangent_mismatch
"""

import jax
import jax.numpy as jnp


def loss(w):
    return jnp.sum(jnp.tanh(w) ** 2)


def hvp(w, v):
    return jax.jvp(jax.grad(loss), (w,), (v,))[1]


print(jax.jit(hvp)(jnp.ones(5), jnp.ones(4)))
