"""Noise for dropout-style masking drawn with jax.random.normal(dtype=jnp.int32).

label: unsupported_dtype
family: random_dtype_mismatch
"""

import jax
import jax.numpy as jnp

key = jax.random.key(0)
noise = jax.random.normal(key, (4, 4), dtype=jnp.int32)
print(noise)
