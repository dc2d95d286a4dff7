"""lax.scan over 4096 steps returns the full hidden state of every step as stacked outputs.

label: oom
family: scan_stacks_outputs_oom
source: jax-ml/jax
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def rollout(h0):
    def step(h, _):
        h = jnp.tanh(h * 0.5 + 1.0)
        return h, h

    _, hs = lax.scan(step, h0, None, length=4096)
    return hs.sum()


print(float(rollout(jnp.ones((512, 2048)))))
