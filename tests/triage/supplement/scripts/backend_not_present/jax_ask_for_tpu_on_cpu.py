"""The script asks JAX for TPU devices on a machine that has none (set-up, not a training bug).

label: unknown
family: backend_not_present
"""

import jax
import jax.numpy as jnp

devices = jax.devices("tpu")
x = jax.device_put(jnp.ones((8, 8)), devices[0])
print(x.sum())
