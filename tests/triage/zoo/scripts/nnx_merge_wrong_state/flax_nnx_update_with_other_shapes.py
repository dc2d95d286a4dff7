"""nnx.update loads a state whose kernel shapes differ from the module's into a jitted step.

label: compile_error
family: nnx_merge_wrong_state
source: google/flax
"""

import jax.numpy as jnp
from flax import nnx

model = nnx.Linear(4, 8, rngs=nnx.Rngs(0))
other = nnx.Linear(6, 8, rngs=nnx.Rngs(0))
nnx.update(model, nnx.state(other))


@nnx.jit
def forward(m, x):
    return m(x)


print(forward(model, jnp.ones((2, 4))))
