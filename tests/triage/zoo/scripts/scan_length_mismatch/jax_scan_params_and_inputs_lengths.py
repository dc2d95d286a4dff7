"""Unrolled RNN scans per-step parameters and inputs whose leading lengths differ.

label: compile_error
family: scan_length_mismatch
source: marin-community/haliax
"""

import jax
import jax.numpy as jnp
from jax import lax


def unrolled_rnn(h, params_per_step, inputs):
    def cell(h, p_x):
        p, x = p_x
        return jnp.tanh(h @ p + x), h

    return lax.scan(cell, h, (params_per_step, inputs))


params = jnp.ones((12, 4, 4))
print(jax.jit(unrolled_rnn)(jnp.zeros(4), params, jnp.ones((10, 4))))
