"""Cross-entropy via jax.nn.one_hot over a 256k vocabulary for a long-context batch.

label: oom
family: one_hot_huge_vocab
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # keep the host safe: fail fast

import jax
import jax.numpy as jnp

VOCAB = 256_000


@jax.jit
def loss_fn(logits_small, labels):
    onehot = jax.nn.one_hot(labels, VOCAB)  # (batch, seq, vocab) in float32
    logits = jnp.broadcast_to(logits_small, onehot.shape)
    return -jnp.mean(jnp.sum(onehot * jax.nn.log_softmax(logits), axis=-1))


labels = jnp.zeros((256, 8192), jnp.int32)
print(loss_fn(jnp.zeros((VOCAB,)), labels))
