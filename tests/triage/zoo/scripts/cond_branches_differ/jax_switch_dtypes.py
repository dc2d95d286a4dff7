"""lax.switch over augmentation ops where one branch returns uint8 and the others float32.

label: compile_error
family: cond_branches_differ
"""

import jax
import jax.numpy as jnp
from jax import lax

branches = [
    lambda img: img,
    lambda img: img[:, ::-1],
    lambda img: (img * 255).astype(jnp.uint8),  # "quantise" augmentation
]


@jax.jit
def augment(img, which):
    return lax.switch(which, branches, img)


print(augment(jnp.ones((4, 4)), 1))
