"""lax.cond predicate is the float loss itself rather than a comparison.

label: compile_error
family: cond_predicate_not_scalar
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def maybe_skip(loss, grads):
    return lax.cond(loss, lambda g: g, lambda g: jax.tree.map(jnp.zeros_like, g), grads)


print(maybe_skip(jnp.array([0.5]), {"w": jnp.ones(3)}))
