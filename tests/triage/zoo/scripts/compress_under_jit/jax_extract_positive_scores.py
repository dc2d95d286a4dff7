"""jnp.extract pulls positive scores out of a batch inside jit.

label: dynamic_shape
family: compress_under_jit
source: jax-ml/jax
"""

import jax
import jax.numpy as jnp


@jax.jit
def positive_mean(scores):
    return jnp.extract(scores > 0, scores).mean()


print(positive_mean(jnp.array([-1.0, 2.0, 3.0])))
