"""lax.scan called with length= that disagrees with the xs it scans over.

label: compile_error
family: scan_length_mismatch
source: marin-community/haliax
"""

import jax
import jax.numpy as jnp
from jax import lax


def rollout(state, actions):
    def step(s, a):
        s = s + a
        return s, s

    return lax.scan(step, state, actions, length=32)


print(jax.jit(rollout)(jnp.zeros(2), jnp.ones((16, 2))))
