"""nnx.cond chooses a branch of a module from a vector of flags.

label: compile_error
family: cond_predicate_not_scalar
source: jax-ml/jax
"""

import jax.numpy as jnp
from flax import nnx


class Gate(nnx.Module):
    def __init__(self, rngs):
        self.a = nnx.Linear(4, 4, rngs=rngs)
        self.b = nnx.Linear(4, 4, rngs=rngs)

    def __call__(self, x, use_a):
        return nnx.cond(use_a, lambda m, v: m.a(v), lambda m, v: m.b(v), self, x)


model = Gate(nnx.Rngs(0))
print(nnx.jit(lambda m, x, f: m(x, f))(model, jnp.ones((2, 4)), jnp.array([True, False])))
