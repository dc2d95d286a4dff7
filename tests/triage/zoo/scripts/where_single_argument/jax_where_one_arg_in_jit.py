"""jnp.where(condition) with one argument inside jit to find above-threshold scores.

label: dynamic_shape
family: where_single_argument
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.jit
def topk_candidates(scores):
    (idx,) = jnp.where(scores > 0.5)
    return scores[idx]


print(topk_candidates(jnp.array([0.1, 0.9, 0.7, 0.2])))
