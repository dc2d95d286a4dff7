"""jax.nn.dot_product_attention pinned to implementation='cudnn' while running on a CPU host.

label: unsupported_op
family: accelerator_only_feature_on_cpu
"""

import jax
import jax.numpy as jnp

B, T, N, H = 2, 128, 4, 64
q = k = v = jnp.ones((B, T, N, H), jnp.bfloat16)


@jax.jit
def attn(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation="cudnn")


print(attn(q, k, v).shape)
