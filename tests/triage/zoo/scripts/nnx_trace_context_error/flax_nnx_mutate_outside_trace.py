"""A module captured by closure inside nnx.jit is mutated from within the trace.

label: compile_error
family: nnx_trace_context_error
source: maxencefaldor/cax
"""

import jax.numpy as jnp
from flax import nnx


class Counter(nnx.Module):
    def __init__(self):
        self.count = nnx.Variable(jnp.array(0))


counter = Counter()


@nnx.jit
def step(x):
    counter.count.value += 1
    return x * 2


print(step(jnp.ones(2)))
