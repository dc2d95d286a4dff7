"""jit static_argnames names an argument that the function does not take.

label: compile_error
family: static_argnums_out_of_range
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


def apply(params, x, training):
    return x @ params if training else x


fn = jax.jit(apply, static_argnames=("is_training",))
print(fn(jnp.ones(3), jnp.ones((2, 3)), training=True))
