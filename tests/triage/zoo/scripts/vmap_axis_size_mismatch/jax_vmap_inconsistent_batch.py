"""vmap over per-example inputs where the labels batch has a different size than the inputs.

label: compile_error
family: vmap_axis_size_mismatch
"""

import jax
import jax.numpy as jnp


def example_loss(w, x, y):
    return (x @ w - y) ** 2


per_example = jax.vmap(example_loss, in_axes=(None, 0, 0))
print(per_example(jnp.ones(3), jnp.ones((32, 3)), jnp.ones((31,))))
