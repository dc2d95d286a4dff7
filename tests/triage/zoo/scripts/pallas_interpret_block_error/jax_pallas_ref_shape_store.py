"""Pallas kernel (interpret mode) stores a full-row result into an output block of a different shape.

label: compile_error
family: pallas_interpret_block_error
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def rowsum_kernel(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], axis=1)  # o_ref block is (8, 1)


@jax.jit
def rowsum(x):
    return pl.pallas_call(
        rowsum_kernel,
        out_shape=jax.ShapeDtypeStruct((x.shape[0], 1), x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, x.shape[1]), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 1), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(rowsum(jnp.ones((16, 128))))
