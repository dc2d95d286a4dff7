"""jax.export with a symbolic batch dimension, but the function branches on the batch size in Python.

label: dynamic_shape
family: shape_polymorphism_export
"""

import jax
import jax.numpy as jnp
from jax import export


def serve(x):
    if x.shape[0] > 8:  # big batches take a different path
        return jnp.tanh(x).sum(axis=-1)
    return x.sum(axis=-1)


b = export.symbolic_shape("b")
exp = export.export(jax.jit(serve))(jax.ShapeDtypeStruct((b[0], 16), jnp.float32))
print(exp.in_avals)
