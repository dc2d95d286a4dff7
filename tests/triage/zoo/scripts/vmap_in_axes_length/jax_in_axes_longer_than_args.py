"""in_axes left with an extra entry after an argument was removed from the function.

label: compile_error
family: vmap_in_axes_length
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


def predict(w, x):
    return x @ w


batched = jax.vmap(predict, in_axes=(None, 0, 0))
print(batched(jnp.ones((3, 2)), jnp.ones((10, 3))))
