"""Hand-written optax learning-rate schedule uses Python `if step < warmup` (step is traced).

label: compile_error
family: python_if_on_traced_value
"""

import jax
import jax.numpy as jnp
import optax

WARMUP = 100


def schedule(step):
    if step < WARMUP:
        return 1e-3 * step / WARMUP
    return 1e-3 * 0.5 * (1 + jnp.cos(jnp.pi * (step - WARMUP) / 900))


tx = optax.adam(schedule)
params = {"w": jnp.ones((4,))}
opt_state = tx.init(params)


@jax.jit
def step(params, opt_state):
    grads = jax.grad(lambda p: jnp.sum(p["w"] ** 2))(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = step(params, opt_state)
print(params)
