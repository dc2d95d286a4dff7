"""a window length passed as an ordinary jit argument is used as a slice bound.

label: compile_error
family: traced_slice_length
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.jit
def first_window(tokens, window):
    return tokens[:window].sum()


print(first_window(jnp.arange(100), 16))
