"""Flax nn.Embed for a byte-pair vocabulary of 1<<30 entries with 4096 features.

label: oom
family: embedding_table_too_large
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # keep the host safe: fail fast

import flax.linen as nn
import jax
import jax.numpy as jnp


class LM(nn.Module):
    vocab_size: int
    d_model: int

    @nn.compact
    def __call__(self, tokens):
        emb = nn.Embed(self.vocab_size, self.d_model, name="tok")
        h = emb(tokens)
        return emb.attend(h)


model = LM(vocab_size=1 << 30, d_model=4096)
params = jax.jit(model.init)(jax.random.key(0), jnp.zeros((1, 128), jnp.int32))
params = jax.block_until_ready(params)
print("initialised", jax.tree_util.tree_map(jnp.shape, params))
