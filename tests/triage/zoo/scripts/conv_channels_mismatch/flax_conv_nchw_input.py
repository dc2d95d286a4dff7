"""PyTorch-style NCHW images fed to a Flax Conv initialised for NHWC.

label: compile_error
family: conv_channels_mismatch
source: google/flax
"""

import flax.linen as nn
import jax
import jax.numpy as jnp

model = nn.Conv(16, (3, 3))
params = model.init(jax.random.key(0), jnp.ones((1, 32, 32, 3)))
print(jax.jit(model.apply)(params, jnp.ones((8, 3, 32, 32))).shape)
