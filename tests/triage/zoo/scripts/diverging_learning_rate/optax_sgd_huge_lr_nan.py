"""optax.sgd with a learning rate of 10 on a quadratic; the loss explodes to NaN and the loop's own check raises.

label: nan_inf
family: diverging_learning_rate
"""

import jax
import jax.numpy as jnp
import optax

params = jnp.ones(4)
opt = optax.sgd(10.0)
state = opt.init(params)


def loss_fn(p):
    return jnp.sum((3.0 * p) ** 4)


for step in range(40):
    loss, g = jax.value_and_grad(loss_fn)(params)
    updates, state = opt.update(g, state)
    params = optax.apply_updates(params, updates)
    print(f"step {step} loss {loss}")
    if jnp.isnan(loss) or jnp.isinf(loss):
        raise FloatingPointError(f"loss became {loss} at step {step}")
