"""custom_vjp backward returns a summed (scalar) cotangent for a vector input.

label: compile_error
family: custom_vjp_bwd_arity
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.custom_vjp
def stable_softplus(x):
    return jnp.logaddexp(x, 0.0)


def fwd(x):
    return stable_softplus(x), x


def bwd(x, g):
    return (jnp.sum(g * jax.nn.sigmoid(x)),)


stable_softplus.defvjp(fwd, bwd)
print(jax.jit(jax.grad(lambda x: stable_softplus(x).sum()))(jnp.arange(4.0)))
