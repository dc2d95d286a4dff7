"""loss_fn(params, batch, rng) called from value_and_grad with the rng argument left out.

label: unknown
family: missing_positional_arg
"""

import jax
import jax.numpy as jnp


def loss_fn(params, batch, rng):
    keep = jax.random.bernoulli(rng, 0.9, batch.shape)
    return jnp.mean((jnp.where(keep, batch, 0.0) @ params) ** 2)


params = jnp.ones((4,))
batch = jnp.ones((8, 4))
loss, grads = jax.value_and_grad(loss_fn)(params, batch)
print(loss)
