"""Orbax restore into a params tree that has a new layer the checkpoint does not contain.

label: checkpoint
family: restore_into_changed_model
"""

import os
import tempfile

import flax.linen as nn
import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp


class Small(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(2)(nn.relu(nn.Dense(8)(x)))


class Bigger(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(8)(x))
        x = nn.LayerNorm()(x)  # added after the run started
        return nn.Dense(2)(x)


x = jnp.ones((1, 4))
mngr = ocp.CheckpointManager(os.path.join(tempfile.mkdtemp(), "ckpts"))
mngr.save(100, args=ocp.args.StandardSave(Small().init(jax.random.key(0), x)))
mngr.wait_until_finished()

abstract = jax.eval_shape(Bigger().init, jax.random.key(0), x)
params = mngr.restore(mngr.latest_step(), args=ocp.args.StandardRestore(abstract))
print(jax.tree_util.tree_map(jnp.shape, params))
