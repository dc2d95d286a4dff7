"""ViT patchify reshapes 224x224 images with patch size 14 written as 16.

label: compile_error
family: reshape_wrong_size_in_jit
"""

import jax
import jax.numpy as jnp

PATCH = 16


@jax.jit
def patchify(images):
    b, h, w, c = images.shape
    n = h // 14  # grid computed for the old patch size
    return images.reshape(b, n, PATCH, n, PATCH, c)


print(patchify(jnp.ones((2, 224, 224, 3))).shape)
