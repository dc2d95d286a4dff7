"""A batch containing NaN targets reaches a jitted loss with jax_debug_nans enabled.

label: nan_inf
family: nan_in_input_data
why: the fix is cleaning/imputing the NaN values in the data
"""

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_debug_nans", True)

y = np.random.rand(32).astype("float32")
y[5] = np.nan  # label missing in the CSV


@jax.jit
def mse(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


print(mse(jnp.ones(3), jnp.ones((32, 3)), y))
