"""Python `if loss < threshold` inside a jitted update to skip the step.

label: compile_error
family: python_if_on_traced_value
"""

import jax
import jax.numpy as jnp


def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@jax.jit
def update(w, x, y):
    loss, g = jax.value_and_grad(loss_fn)(w, x, y)
    if loss < 1e-3:  # converged: keep the weights
        return w, loss
    return w - 0.01 * g, loss


x = jnp.ones((8, 3))
y = jnp.ones((8,))
w = jnp.zeros((3,))
for step in range(3):
    w, loss = update(w, x, y)
    print(step, loss)
