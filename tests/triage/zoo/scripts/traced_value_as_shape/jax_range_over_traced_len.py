"""Python range() over a sequence length passed as a traced jit argument.

label: compile_error
family: traced_value_as_shape
"""

import jax
import jax.numpy as jnp


@jax.jit
def decode(params, prompt, max_new_tokens):
    tokens = prompt
    for _ in range(max_new_tokens):
        logits = tokens[-1:] @ params
        tokens = jnp.concatenate([tokens, jnp.argmax(logits, -1)[:, None].astype(tokens.dtype)])
    return tokens


params = jnp.eye(4)
print(decode(params, jnp.zeros((1, 4)), 8))
