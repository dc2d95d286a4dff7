"""An activation name string is passed as an ordinary argument to a jitted layer.

label: compile_error
family: non_array_jit_argument
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.jit
def dense(x, w, activation):
    h = x @ w
    return jax.nn.relu(h) if activation == "relu" else h


print(dense(jnp.ones((2, 3)), jnp.ones((3, 4)), "relu"))
