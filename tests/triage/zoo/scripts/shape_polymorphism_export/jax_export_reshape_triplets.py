"""Exported serving function reshapes a symbolic batch into triplets, which needs b to be a multiple of 3.

label: dynamic_shape
family: shape_polymorphism_export
"""

import jax
import jax.numpy as jnp
from jax import export


def score_triplets(x):
    t = x.reshape((-1, 3, x.shape[1]))  # (anchor, positive, negative)
    return jnp.maximum(
        0.0, jnp.sum((t[:, 0] - t[:, 1]) ** 2, -1) - jnp.sum((t[:, 0] - t[:, 2]) ** 2, -1) + 1.0
    )


(b,) = export.symbolic_shape("b")
exp = export.export(jax.jit(score_triplets))(jax.ShapeDtypeStruct((b, 32), jnp.float32))
print(exp.mlir_module()[:200])
