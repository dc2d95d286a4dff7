"""The Pallas TPU flash-attention kernel is called from a model that is being tested on CPU.

label: unsupported_op
family: pallas_tpu_kernel_on_cpu
"""

import jax
import jax.numpy as jnp
from jax.experimental.pallas.ops.tpu import flash_attention

q = k = v = jnp.ones((1, 2, 128, 64), jnp.float32)
out = jax.jit(flash_attention.flash_attention)(q, k, v)
print(out.shape)
