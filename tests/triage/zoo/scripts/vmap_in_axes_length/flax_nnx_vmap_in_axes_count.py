"""nnx.vmap ensembling a model with in_axes that leave out the input argument.

label: compile_error
family: vmap_in_axes_length
source: google/flax
"""

import jax.numpy as jnp
from flax import nnx

model = nnx.Linear(3, 2, rngs=nnx.Rngs(0))


def apply(m, x, scale):
    return m(x) * scale


out = nnx.vmap(apply, in_axes=(None, 0))(model, jnp.ones((4, 3)), 2.0)
print(out.shape)
