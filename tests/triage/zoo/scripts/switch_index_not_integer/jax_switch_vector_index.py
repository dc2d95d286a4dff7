"""lax.switch given one branch index per example instead of a scalar.

label: compile_error
family: switch_index_not_integer
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def route(task_ids, x):
    return lax.switch(task_ids, [lambda v: v * 2, lambda v: v + 1], x)


print(route(jnp.array([0, 1, 1]), jnp.ones((3, 2))))
