"""Flax training state replicated with a hard-coded device count of 8, then fed to pmap.

label: strategy_scope
family: pmap_more_devices_than_available
source: jax-ml/jax
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import flax.linen as nn
import jax
import jax.numpy as jnp

model = nn.Dense(2)
params = model.init(jax.random.key(0), jnp.ones((1, 3)))
params = jax.tree.map(lambda p: jnp.stack([p] * 8), params)
apply = jax.pmap(model.apply)
print(apply(params, jnp.ones((8, 4, 3))))
