"""Assert that the embedding table matches the tokenizer vocabulary fails after a tokenizer change.

label: unknown
family: user_assert
"""

import jax
import jax.numpy as jnp

VOCAB = ["<pad>", "<unk>"] + [f"tok{i}" for i in range(32000)]
embed = jax.random.normal(jax.random.key(0), (32000, 64))

assert embed.shape[0] == len(VOCAB), f"embedding rows {embed.shape[0]} != vocab size {len(VOCAB)}"
print(jnp.mean(embed))
