"""Plain softmax attention on a 131072-token context materialises the full score matrix.

label: oom
family: attention_quadratic_seq_len
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # keep the host safe: fail fast

import jax
import jax.numpy as jnp

B, H, L, D = 1, 8, 131072, 64


@jax.jit
def attention(q, k, v):
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(D)
    mask = jnp.tril(jnp.ones((L, L), bool))
    scores = jnp.where(mask, scores, -1e9)
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)


q = k = v = jnp.zeros((B, H, L, D), jnp.bfloat16)
out = attention(q, k, v)
print("attention output norm", float(jnp.linalg.norm(out[0, 0])))
