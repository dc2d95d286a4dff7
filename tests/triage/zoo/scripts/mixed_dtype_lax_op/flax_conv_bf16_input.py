"""Custom Flax conv calls lax.conv_general_dilated on bfloat16 images with a float32 kernel param.

label: unsupported_dtype
family: mixed_dtype_lax_op
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
from jax import lax


class StemConv(nn.Module):
    features: int = 32

    @nn.compact
    def __call__(self, x):
        kernel = self.param("kernel", nn.initializers.lecun_normal(), (3, 3, x.shape[-1], self.features))
        return lax.conv_general_dilated(x, kernel, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


images = jnp.ones((2, 32, 32, 3), jnp.bfloat16)
model = StemConv()
params = model.init(jax.random.key(0), images)
print(model.apply(params, images).shape)
