"""A Flax module broadcasts a (B, L, L, D) relative-position tensor for long sequences.

label: oom
family: pairwise_broadcast_oom
source: jax-ml/jax
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

import flax.linen as nn
import jax
import jax.numpy as jnp


class RelPos(nn.Module):
    @nn.compact
    def __call__(self, x):
        rel = x[:, :, None, :] - x[:, None, :, :]
        return nn.Dense(1)(rel).sum()


x = jnp.ones((8, 8192, 64))
m = RelPos()
params = m.init(jax.random.key(0), jnp.ones((1, 4, 64)))
print(float(jax.jit(m.apply)(params, x)))
