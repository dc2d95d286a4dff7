"""JAX loop pulls batches with next() from ds.as_numpy_iterator() for more steps than one epoch holds.

label: input_pipeline
family: exhausted_dataset_no_repeat
"""

import jax
import jax.numpy as jnp
import tensorflow as tf

TOTAL_STEPS = 50
ds = tf.data.Dataset.from_tensor_slices(
    {"x": tf.random.normal([320, 8]), "y": tf.random.normal([320])}
).batch(32)
batches = ds.as_numpy_iterator()


@jax.jit
def step(w, x, y):
    g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return w - 0.05 * g


w = jnp.zeros((8,))
for i in range(TOTAL_STEPS):
    batch = next(batches)
    w = step(w, batch["x"], batch["y"])
print(w)
