"""Flax params annotated with nn.with_partitioning; init is jitted with out_shardings=specs but no mesh.

label: strategy_scope
family: sharding_without_mesh_context
why: the fix is doing the sharded init under the mesh context
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh

mesh = Mesh(np.array(jax.devices()), ("model",))


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(8, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), (None, "model")))(x)
        return nn.Dense(2, kernel_init=nn.with_partitioning(nn.initializers.lecun_normal(), ("model", None)))(
            x
        )


model = MLP()
x = jnp.ones((4, 4))
abstract = jax.eval_shape(model.init, jax.random.key(0), x)
specs = nn.get_partition_spec(abstract)
params = jax.jit(model.init, out_shardings=specs)(jax.random.key(0), x)
print(jax.tree_util.tree_map(lambda a: a.sharding, params))
