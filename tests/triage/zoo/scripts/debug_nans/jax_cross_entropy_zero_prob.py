"""Hand-written cross entropy -sum(y * log(p)) with a probability of exactly 0, run with jax_debug_nans.

label: nan_inf
family: debug_nans
"""

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def xent(probs, onehot):
    return -jnp.sum(onehot * jnp.log(probs), axis=-1).mean()


probs = jnp.array([[0.7, 0.3, 0.0], [0.1, 0.0, 0.9]])  # hard zeros from a clipped softmax
onehot = jax.nn.one_hot(jnp.array([0, 2]), 3)
print(xent(probs, onehot))
