"""A jitted layer multiplies activations by a weight whose input dimension is wrong.

label: compile_error
family: matmul_shape_mismatch
"""

import jax
import jax.numpy as jnp


@jax.jit
def layer(x, w):
    return jnp.tanh(x @ w)


layer(jnp.ones((8, 128)), jnp.ones((256, 64)))
