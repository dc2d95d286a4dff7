"""jnp.arange over a length given as a traced argument to build position ids.

label: compile_error
family: traced_slice_length
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.jit
def positions(batch, seq_len):
    return jnp.broadcast_to(jnp.arange(seq_len), (batch.shape[0], seq_len))


print(positions(jnp.ones((4, 8)), 8))
