"""Millisecond timestamps (> 2**31) turned into a jnp array without x64 enabled.

label: unsupported_dtype
family: large_int_without_x64
"""

import jax.numpy as jnp

timestamps_ms = [1717171717000, 1717171718500, 1717171720250]
ts = jnp.array(timestamps_ms, dtype=jnp.int64)
print((ts - ts[0]) / 1000.0)
