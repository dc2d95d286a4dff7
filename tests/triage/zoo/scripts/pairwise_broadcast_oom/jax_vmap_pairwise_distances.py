"""Nested vmap computes all pairwise difference vectors (N x N x D) for a contrastive loss on a large batch.

label: oom
family: pairwise_broadcast_oom
source: jax-ml/jax
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

import jax
import jax.numpy as jnp

emb = jnp.ones((40_000, 512))
diff = jax.jit(jax.vmap(jax.vmap(lambda a, b: a - b, (None, 0)), (0, None)))
loss = jnp.sum(diff(emb, emb) ** 2)
print(float(loss))
