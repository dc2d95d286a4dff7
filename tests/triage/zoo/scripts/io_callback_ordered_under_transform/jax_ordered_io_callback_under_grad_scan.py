"""An ordered io_callback inside a scanned body that is differentiated.

label: unsupported_op
family: io_callback_ordered_under_transform
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback


def record(x):
    return np.float32(x)


def loss(w):
    def step(c, x):
        io_callback(record, jax.ShapeDtypeStruct((), jnp.float32), c, ordered=True)
        return c * w + x, None

    out, _ = jax.lax.scan(step, 0.0, jnp.ones(4))
    return out


print(jax.grad(loss)(1.5))
