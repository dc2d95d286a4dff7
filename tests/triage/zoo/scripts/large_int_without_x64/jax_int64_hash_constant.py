"""64-bit hashing constant used in a jitted feature hasher without enabling jax_enable_x64.

label: unsupported_dtype
family: large_int_without_x64
"""

import jax
import jax.numpy as jnp

FNV_PRIME = 1099511628211  # 64-bit FNV prime


@jax.jit
def hash_ids(ids):
    return (ids * FNV_PRIME) % 1_000_003


print(hash_ids(jnp.arange(5)))
