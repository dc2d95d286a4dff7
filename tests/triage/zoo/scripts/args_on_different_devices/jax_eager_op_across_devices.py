"""Two arrays committed to different devices are added eagerly outside jit.

label: strategy_scope
family: args_on_different_devices
source: scverse/scvi-tools
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp

a = jax.device_put(jnp.arange(4.0), jax.devices()[0])
b = jax.device_put(jnp.arange(4.0), jax.devices()[1])
print(a + b)
