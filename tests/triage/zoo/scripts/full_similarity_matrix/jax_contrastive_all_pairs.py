"""Contrastive loss computes the similarity of every pair in the whole dataset inside one jit step.

label: oom
family: full_similarity_matrix
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # keep the host safe: fail fast

import jax
import jax.numpy as jnp

NUM_EXAMPLES = 1 << 20
DIM = 128


@jax.jit
def contrastive_loss(emb):
    emb = emb / jnp.linalg.norm(emb, axis=-1, keepdims=True)
    logits = emb @ emb.T  # (N, N): every example against every other one
    labels = jnp.arange(emb.shape[0])
    logp = jax.nn.log_softmax(logits / 0.07, axis=-1)
    return -jnp.mean(logp[labels, labels])


emb = jnp.ones((NUM_EXAMPLES, DIM), jnp.float32) * 0.01
print("loss", contrastive_loss(emb))
