"""Flax eval loop reshapes every batch to (local_device_count, -1, ...) for pmap; the last batch is odd.

label: dynamic_shape
family: last_partial_batch_static_step
why: the fix is padding or dropping the remainder so every batch has the static size
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax import jax_utils

model = nn.Dense(3)
params = model.init(jax.random.key(0), jnp.ones((1, 5)))
replicated = jax_utils.replicate(params)


@jax.pmap
def predict(p, x):
    return jnp.argmax(model.apply(p, x), -1)


x_eval = np.random.rand(41, 5).astype("float32")
for i in range(0, len(x_eval), 16):
    batch = x_eval[i : i + 16]
    sharded = jax.tree_util.tree_map(lambda a: a.reshape((jax.local_device_count(), -1) + a.shape[1:]), batch)
    print(predict(replicated, sharded))
