"""lax.cond given a per-example boolean vector as its predicate inside a jitted step.

label: compile_error
family: cond_predicate_not_scalar
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def clip_or_scale(x):
    too_big = jnp.abs(x).max(axis=1) > 1.0  # one flag per example
    return lax.cond(too_big, lambda v: v / 10.0, lambda v: v, x)


print(clip_or_scale(jnp.ones((4, 3)) * 3.0))
