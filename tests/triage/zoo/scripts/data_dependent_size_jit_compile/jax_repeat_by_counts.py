"""jnp.repeat with per-example counts (no total_repeat_length) inside a jitted packing function.

label: dynamic_shape
family: data_dependent_size_jit_compile
"""

import jax
import jax.numpy as jnp


@jax.jit
def segment_ids(lengths):
    # packed sequence: segment i repeated lengths[i] times
    return jnp.repeat(jnp.arange(lengths.shape[0]), lengths)


print(segment_ids(jnp.array([3, 1, 4])))
