"""MLP weights sized for 28*28 inputs applied to flattened 32*32*3 images inside jit.

label: compile_error
family: dot_general_shape_mismatch
"""

import jax
import jax.numpy as jnp


@jax.jit
def predict(params, images):
    x = images.reshape(images.shape[0], -1)
    h = jax.nn.relu(x @ params["w1"])
    return h @ params["w2"]


params = {"w1": jnp.zeros((784, 128)), "w2": jnp.zeros((128, 10))}
print(predict(params, jnp.zeros((8, 32, 32, 3))).shape)
