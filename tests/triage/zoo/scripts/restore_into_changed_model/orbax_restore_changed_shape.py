"""Orbax StandardRestore into an abstract target whose embedding size changed since the save.

label: checkpoint
family: restore_into_changed_model
"""

import os
import tempfile

import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp

path = os.path.join(tempfile.mkdtemp(), "ckpt")
params = {"embed": jnp.ones((1000, 64)), "out": jnp.ones((64, 10))}
ckptr = ocp.StandardCheckpointer()
ckptr.save(path, params)
ckptr.wait_until_finished()

new_params = {"embed": jnp.zeros((1000, 128)), "out": jnp.zeros((128, 10))}
target = jax.tree_util.tree_map(ocp.utils.to_shape_dtype_struct, new_params)
restored = ckptr.restore(path, target)
print(jax.tree_util.tree_map(jnp.shape, restored))
