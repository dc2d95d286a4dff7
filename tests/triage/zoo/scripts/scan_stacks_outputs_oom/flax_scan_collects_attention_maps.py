"""A Flax RNN loop keeps every step's attention map as a scan output for visualisation.

label: oom
family: scan_stacks_outputs_oom
source: jax-ml/jax
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

import jax
import jax.numpy as jnp
from jax import lax


def decode(keys):
    def step(q, _):
        attn = jax.nn.softmax(q @ keys.T)
        return q, attn

    _, maps = lax.scan(step, jnp.ones((64, 256)), None, length=2048)
    return maps.mean()


print(float(jax.jit(decode)(jnp.ones((16384, 256)))))
