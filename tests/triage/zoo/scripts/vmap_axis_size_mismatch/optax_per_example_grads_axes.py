"""Per-example gradients with vmap, in_axes mapping the params too (they have no batch axis).

label: compile_error
family: vmap_axis_size_mismatch
"""

import jax
import jax.numpy as jnp
import optax


def loss(params, x, y):
    return optax.l2_loss(x @ params["w"], y).sum()


params = {"w": jnp.ones((5, 1))}
x, y = jnp.ones((16, 5)), jnp.ones((16, 1))
grads = jax.vmap(jax.grad(loss), in_axes=(0, 0, 0))(params, x, y)
print(jax.tree_util.tree_map(jnp.shape, grads))
