"""Flax Dense layers run with dtype=float16 and the loss summed in float16; the loop logs loss inf and raises.

label: nan_inf
family: float16_loss_inf
source: tensorflow/tensorflow
"""

import flax.linen as nn
import jax
import jax.numpy as jnp


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Dense(256, dtype=jnp.float16)(x)
        return nn.Dense(1, dtype=jnp.float16)(x)


model = MLP()
params = model.init(jax.random.key(0), jnp.ones((1, 64)))
x = jnp.ones((128, 64)) * 50.0


@jax.jit
def loss_fn(params):
    pred = model.apply(params, x)
    return jnp.sum(pred.astype(jnp.float16) ** 2)


loss = loss_fn(params)
print(f"step 0 loss {loss}")
if not jnp.isfinite(loss):
    raise FloatingPointError(f"loss {loss}: float16 overflow, compute the loss in float32")
