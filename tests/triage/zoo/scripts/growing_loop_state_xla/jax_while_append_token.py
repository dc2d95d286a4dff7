"""Greedy decoding appends each new token to the sequence inside lax.while_loop (the carry grows).

label: dynamic_shape
family: growing_loop_state_xla
why: the fix is a preallocated fixed-length token buffer, not a different loop primitive
"""

import jax
import jax.numpy as jnp
from jax import lax

EOS = 2


@jax.jit
def greedy(params, prompt):
    def cond(state):
        tokens = state
        return tokens[-1] != EOS

    def body(tokens):
        nxt = jnp.argmax(params[tokens[-1]])
        return jnp.concatenate([tokens, nxt[None]])

    return lax.while_loop(cond, body, prompt)


params = jax.random.normal(jax.random.key(0), (8, 8))
print(greedy(params, jnp.array([1, 5])))
