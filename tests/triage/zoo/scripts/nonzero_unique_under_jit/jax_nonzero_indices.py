"""jnp.nonzero without size= to gather the positions of masked tokens inside jit.

label: dynamic_shape
family: nonzero_unique_under_jit
"""

import jax
import jax.numpy as jnp

MASK_ID = 103


@jax.jit
def mlm_logits(hidden, input_ids, w_out):
    (positions,) = jnp.nonzero(input_ids[0] == MASK_ID)
    return hidden[0, positions] @ w_out


hidden = jnp.ones((1, 16, 8))
ids = jnp.array([[101, 7, 103, 9, 103, 102] + [0] * 10])
print(mlm_logits(hidden, ids, jnp.ones((8, 30))).shape)
