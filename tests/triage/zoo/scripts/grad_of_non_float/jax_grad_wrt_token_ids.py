"""jax.grad taken with respect to the integer token ids instead of the embedding parameters.

label: unsupported_dtype
family: grad_of_non_float
"""

import jax
import jax.numpy as jnp


def loss_fn(tokens, emb):
    return jnp.mean(emb[tokens] ** 2)


tokens = jnp.array([[1, 2, 3], [4, 5, 6]])
emb = jnp.ones((10, 4))
grads = jax.grad(loss_fn)(tokens, emb)  # argnums=0 is the int array
print(grads)
