"""A bias of the wrong width is added to activations inside a jitted step.

label: compile_error
family: broadcast_mismatch
"""

import jax
import jax.numpy as jnp


@jax.jit
def step(h, b):
    return jax.nn.relu(h + b)


step(jnp.ones((32, 512)), jnp.ones((256,)))
