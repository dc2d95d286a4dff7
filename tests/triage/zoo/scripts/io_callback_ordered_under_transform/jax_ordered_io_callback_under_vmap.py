"""An ordered io_callback that logs per-example metrics is called inside a vmapped function.

label: unsupported_op
family: io_callback_ordered_under_transform
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback


def log_metric(x):
    print("metric", x)
    return np.float32(0.0)


def per_example(x):
    io_callback(log_metric, jax.ShapeDtypeStruct((), jnp.float32), x.sum(), ordered=True)
    return x * 2


print(jax.vmap(per_example)(jnp.ones((4, 3))))
