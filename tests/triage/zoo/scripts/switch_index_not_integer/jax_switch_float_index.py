"""lax.switch selects an augmentation with a float index sampled from uniform.

label: compile_error
family: switch_index_not_integer
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def augment(key, x):
    idx = jax.random.uniform(key) * 3
    return lax.switch(idx, [lambda v: v, lambda v: -v, lambda v: v[::-1]], x)


print(augment(jax.random.key(0), jnp.arange(4.0)))
