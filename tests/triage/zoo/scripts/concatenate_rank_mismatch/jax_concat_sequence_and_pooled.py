"""jnp.concatenate of per-token features (B, T, D) with pooled features (B, D) inside jit.

label: compile_error
family: concatenate_rank_mismatch
"""

import jax
import jax.numpy as jnp


@jax.jit
def fuse(tokens, pooled):
    return jnp.concatenate([tokens, pooled], axis=-1)


print(fuse(jnp.ones((2, 5, 8)), jnp.ones((2, 8))).shape)
