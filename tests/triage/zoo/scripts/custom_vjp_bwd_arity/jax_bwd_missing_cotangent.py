"""custom_vjp backward returns one cotangent for a function of two inputs.

label: compile_error
family: custom_vjp_bwd_arity
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.custom_vjp
def safe_div(a, b):
    return a / b


def fwd(a, b):
    return a / b, (a, b)


def bwd(res, g):
    a, b = res
    return (g / b,)  # forgot the cotangent for b


safe_div.defvjp(fwd, bwd)
print(jax.grad(lambda a, b: safe_div(a, b).sum(), argnums=(0, 1))(jnp.ones(3), jnp.full(3, 2.0)))
