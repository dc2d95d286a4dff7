"""A batch of 19 examples device_put with a sharding that splits the batch over 4 devices.

label: strategy_scope
family: batch_not_divisible_by_mesh
source: Physical-Intelligence/openpi
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4,), ("batch",))
batch = np.ones((19, 10, 32), np.float32)  # last batch of the epoch
x = jax.device_put(batch, NamedSharding(mesh, P("batch")))
print(x.shape)
