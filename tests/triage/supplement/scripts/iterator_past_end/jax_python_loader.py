"""A JAX loop asks a finite Python batch iterator for more steps than an epoch holds.

label: input_pipeline
family: iterator_past_end
"""

import jax.numpy as jnp
import numpy as np


def batches(data, size):
    for i in range(0, len(data) - size + 1, size):
        yield data[i : i + size]


loader = batches(np.zeros((1000, 8), "float32"), 128)
total = 0.0
for _step in range(20):
    total += float(jnp.sum(next(loader)))
