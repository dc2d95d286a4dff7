"""Duration-based upsampling repeats frames by predicted durations inside a jitted model.

label: dynamic_shape
family: repeat_traced_repeats
"""

import jax
import jax.numpy as jnp


@jax.jit
def upsample(frames, durations):
    return jnp.repeat(frames, jnp.round(durations).astype(jnp.int32), axis=0)


print(upsample(jnp.ones((4, 8)), jnp.array([1.2, 2.7, 0.4, 3.1])).shape)
