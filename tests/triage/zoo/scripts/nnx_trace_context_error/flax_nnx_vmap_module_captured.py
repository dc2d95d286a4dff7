"""jax.vmap over a method of an nnx module that updates its own state (trace context mismatch).

label: compile_error
family: nnx_trace_context_error
source: maxencefaldor/cax
"""

import jax
import jax.numpy as jnp
from flax import nnx


class Stats(nnx.Module):
    def __init__(self):
        self.total = nnx.BatchStat(jnp.zeros(()))

    def __call__(self, x):
        self.total.value += x.sum()
        return x


s = Stats()
print(jax.vmap(s)(jnp.ones((4, 3))))
