"""Attention einsum contracts the head dim against the sequence dim (swapped axes of k).

label: compile_error
family: dot_general_shape_mismatch
"""

import jax
import jax.numpy as jnp


@jax.jit
def scores(q, k):
    return jnp.einsum("bhqd,bhdk->bhqk", q, k)  # k is (b, h, seq, d), not transposed


q = jnp.ones((2, 4, 128, 64))
k = jnp.ones((2, 4, 128, 64))
print(scores(q, k).shape)
