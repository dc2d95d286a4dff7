"""Each batch is sharded over the 'data' mesh axis of 2 devices; the final batch has 31 examples.

label: dynamic_shape
family: last_partial_batch_static_step
why: the fix is a fixed batch size (drop or pad the remainder)
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))
data_sharding = NamedSharding(mesh, P("data"))


@jax.jit
def eval_step(x):
    return jnp.mean(x**2)


data = np.random.rand(95, 8).astype("float32")
for start in range(0, len(data), 32):
    batch = jax.device_put(data[start : start + 32], data_sharding)
    print(start, eval_step(batch))
