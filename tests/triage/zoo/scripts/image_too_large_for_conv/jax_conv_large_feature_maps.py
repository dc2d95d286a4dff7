"""lax.conv over 4k x 4k images with 256 output channels in one jitted call.

label: oom
family: image_too_large_for_conv
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def features(x, k):
    return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")).mean()


print(float(features(jnp.ones((8, 4096, 4096, 3)), jnp.ones((3, 3, 3, 256)))))
