"""A training script imports a JAX module that newer releases removed.

label: unknown
family: import_moved_symbol
"""

import jax.numpy as jnp
from jax.experimental.maps import xmap

step = xmap(lambda x: jnp.sin(x), in_axes=["batch", ...], out_axes=["batch", ...])
print(step(jnp.ones((4, 3))))
