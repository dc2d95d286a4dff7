"""Flax Dense layer sized with an extra factor: a million-by-million kernel at init.

label: oom
family: oversized_layer_init
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # keep the host safe: fail fast

import flax.linen as nn
import jax
import jax.numpy as jnp

HIDDEN = 1_000 * 1_000  # meant 1_000


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(HIDDEN)(x))
        x = nn.relu(nn.Dense(HIDDEN)(x))
        return nn.Dense(10)(x)


model = MLP()
params = jax.jit(model.init)(jax.random.key(0), jnp.ones((8, 784)))
print("param norm", sum(float(jnp.sum(p**2)) for p in jax.tree_util.tree_leaves(params)))
