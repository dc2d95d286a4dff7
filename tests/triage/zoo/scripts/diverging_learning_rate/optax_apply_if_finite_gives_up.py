"""optax.apply_if_finite skips NaN updates until its limit is hit; the loop checks the count and stops.

label: nan_inf
family: diverging_learning_rate
"""

import jax
import jax.numpy as jnp
import optax

opt = optax.apply_if_finite(optax.sgd(1e3), max_consecutive_errors=3)
params = jnp.ones(3)
state = opt.init(params)
for step in range(6):
    loss, g = jax.value_and_grad(lambda p: jnp.sum(jnp.log(p) ** 2))(params - 2.0)
    updates, state = opt.update(g, state, params)
    params = optax.apply_updates(params, updates)
    print(f"step {step} loss {loss} notfinite_count {int(state.notfinite_count)}")
    if int(state.total_notfinite) >= 3:
        raise RuntimeError(f"{int(state.total_notfinite)} non-finite updates: loss {loss}")
