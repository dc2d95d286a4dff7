"""vmap in_axes given as a dict for a function whose only argument is that dict.

label: compile_error
family: vmap_in_axes_length
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


def norm(batch):
    return jnp.linalg.norm(batch["x"])


print(jax.vmap(norm, in_axes={"x": 0})({"x": jnp.ones((5, 3))}))
