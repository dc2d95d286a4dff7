"""jnp.repeat expands segment ids by per-example lengths inside jit without total_repeat_length.

label: dynamic_shape
family: repeat_traced_repeats
"""

import jax
import jax.numpy as jnp


@jax.jit
def segment_ids(lengths):
    return jnp.repeat(jnp.arange(lengths.shape[0]), lengths)


print(segment_ids(jnp.array([3, 1, 2])))
