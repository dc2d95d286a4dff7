"""optax.sgd(learning_rate=1e20) (meant 1e-2): weights overflow to inf and then NaN under jax_debug_nans.

label: nan_inf
family: debug_nans
"""

import jax
import jax.numpy as jnp
import optax

jax.config.update("jax_debug_nans", True)

tx = optax.sgd(learning_rate=1e20)
params = {"w": jnp.ones((4, 1))}
opt_state = tx.init(params)
x, y = jnp.ones((8, 4)), jnp.zeros((8, 1))


@jax.jit
def step(params, opt_state):
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((x @ p["w"] - y) ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss


for i in range(10):
    params, opt_state, loss = step(params, opt_state)
    print(i, loss)
