"""Spectral loss returns a complex value (forgot jnp.abs) and is differentiated with jax.grad.

label: unsupported_dtype
family: grad_of_non_float
"""

import jax
import jax.numpy as jnp


def spectral_loss(w, x, target):
    pred = jnp.fft.rfft(x @ w)
    return jnp.mean((pred - jnp.fft.rfft(target)) ** 2)


w = jnp.ones((8, 8)) * 0.1
x = jnp.ones((4, 8))
print(jax.grad(spectral_loss)(w, x, jnp.zeros((4, 8))))
