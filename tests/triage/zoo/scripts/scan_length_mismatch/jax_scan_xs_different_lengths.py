"""lax.scan over inputs and targets whose leading lengths differ.

label: compile_error
family: scan_length_mismatch
source: marin-community/haliax
"""

import jax
import jax.numpy as jnp
from jax import lax


def step(w, xy):
    x, y = xy
    g = (x @ w - y) * x
    return w - 0.1 * g, jnp.sum(g)


inputs = jnp.ones((100, 3))
targets = jnp.ones((99,))  # one target dropped by an off-by-one slice
w, _ = jax.jit(lambda w: lax.scan(step, w, (inputs, targets)))(jnp.zeros(3))
print(w)
