"""Old model-parallel code imports xmap from jax.experimental.maps (removed).

label: unknown
family: removed_api_import
"""

import jax.numpy as jnp
from jax.experimental.maps import xmap

f = xmap(lambda x: x * 2, in_axes=["batch", ...], out_axes=["batch", ...])
print(f(jnp.ones((4, 3))))
