"""custom_vjp backward rule returns a bare cotangent instead of a tuple with one per primal input.

label: compile_error
family: custom_vjp_bwd_arity
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x, bound):
    return x


def fwd(x, bound):
    return x, bound


def bwd(bound, g):
    return jnp.clip(g, -bound, bound)  # should be (clipped, None)


clip_gradient.defvjp(fwd, bwd)
print(jax.grad(lambda x: jnp.sum(clip_gradient(x, 0.5) ** 2))(jnp.ones(3) * 4.0))
