"""Log of a token count that can be zero, with jax_debug_infs enabled.

label: nan_inf
family: debug_infs
"""

import jax
import jax.numpy as jnp

jax.config.update("jax_debug_infs", True)


@jax.jit
def log_tf_idf(counts, doc_freq):
    return jnp.log(counts) * jnp.log(1000.0 / doc_freq)


print(log_tf_idf(jnp.array([3.0, 0.0, 5.0]), jnp.array([10.0, 20.0, 30.0])))
