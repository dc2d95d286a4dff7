"""A Pallas kernel written for TPU is launched on a CPU host without interpret=True.

label: unsupported_op
family: pallas_tpu_kernel_on_cpu
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


@jax.jit
def add(x, y):
    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)


print(add(jnp.ones((8, 128)), jnp.ones((8, 128))))
