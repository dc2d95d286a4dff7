"""lax.conv_general_dilated with a kernel made for 1 input channel on RGB images.

label: compile_error
family: conv_channels_mismatch
source: google/flax
"""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def conv(x, k):
    return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


print(conv(jnp.ones((2, 28, 28, 3)), jnp.ones((3, 3, 1, 8))).shape)
