"""pmap over a leading axis of 8 replicas on a host with 2 devices.

label: strategy_scope
family: pmap_more_devices_than_available
source: jax-ml/jax
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp

replicated = jnp.ones((8, 3))  # reshaped for an 8-chip v3-8
print(jax.pmap(lambda x: x * 2)(replicated))
