"""A custom JAX loop casts activations to float16; the sum of squares overflows, the loop prints loss inf and stops.

label: nan_inf
family: float16_loss_inf
source: tensorflow/tensorflow
"""

import jax
import jax.numpy as jnp

w = jnp.full((512, 512), 0.5, jnp.float16)


@jax.jit
def loss_fn(w, x):
    h = (x.astype(jnp.float16) @ w) * 8
    return jnp.sum(h * h)


x = jnp.ones((64, 512))
for step in range(3):
    loss = loss_fn(w, x)
    print(f"step {step} loss {float(loss)}")
    if not jnp.isfinite(loss):
        raise SystemExit(f"loss is {float(loss)} at step {step}; stopping")
