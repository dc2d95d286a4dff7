"""Parameters committed to device 1 and the batch committed to device 0, then combined in a jitted function.

label: strategy_scope
family: args_on_different_devices
source: Physical-Intelligence/openpi
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp

d0, d1 = jax.devices()[:2]
params = jax.device_put(jnp.ones((4, 4)), d1)
batch = jax.device_put(jnp.ones((8, 4)), d0)
print(jax.jit(lambda p, x: x @ p)(params, batch))
