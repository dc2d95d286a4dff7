"""jnp.einsum output names an index that no operand has.

label: compile_error
family: einsum_bad_subscripts
"""

import jax
import jax.numpy as jnp


@jax.jit
def attn(q, k):
    return jnp.einsum("bqd,bkd->bqz", q, k)


print(attn(jnp.ones((2, 4, 8)), jnp.ones((2, 6, 8))).shape)
