"""Mesh built from a flat device list with two axis names.

label: strategy_scope
family: mesh_shape_mismatch
source: jax-ml/jax
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
from jax.sharding import Mesh

mesh = Mesh(jax.devices(), ("data", "model"))
print(mesh)
