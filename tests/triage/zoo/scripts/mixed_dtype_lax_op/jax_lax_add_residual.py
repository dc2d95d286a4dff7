"""Residual added with lax.add between bfloat16 activations and a float32 skip path.

label: unsupported_dtype
family: mixed_dtype_lax_op
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def block(x, w):
    h = jnp.tanh(x.astype(jnp.bfloat16) @ w.astype(jnp.bfloat16))
    return lax.add(h, x)  # h is bf16, x is f32


print(block(jnp.ones((4, 16)), jnp.ones((16, 16))))
