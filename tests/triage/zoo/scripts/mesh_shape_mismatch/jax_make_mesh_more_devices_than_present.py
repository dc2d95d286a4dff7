"""make_mesh asks for a 4x2 mesh on a host that has 4 devices.

label: strategy_scope
family: mesh_shape_mismatch
source: jax-ml/jax
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax

mesh = jax.make_mesh((4, 2), ("data", "model"))
print(mesh)
