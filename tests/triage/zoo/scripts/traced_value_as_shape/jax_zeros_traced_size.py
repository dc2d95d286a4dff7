"""Padding buffer sized by a length that is a traced argument of the jitted collate function.

label: compile_error
family: traced_value_as_shape
"""

import jax
import jax.numpy as jnp


@jax.jit
def pad_to(seq, target_len):
    pad = jnp.zeros((target_len - seq.shape[0],), seq.dtype)
    return jnp.concatenate([seq, pad])


print(pad_to(jnp.arange(5), 16))
