"""Pallas kernel (interpret mode on CPU) with a BlockSpec block shape that does not match the index map rank.

label: compile_error
family: pallas_interpret_block_error
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


@jax.jit
def scale(x):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 8,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i,))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        interpret=True,
    )(x)


print(scale(jnp.ones((32, 128))))
