"""Synthetic-data benchmark with batch_size=1_000_000 (three zeros too many) of 224x224 images.

label: oom
family: batch_size_extra_zeros
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # keep the host safe: fail fast

import jax
import jax.numpy as jnp

BATCH_SIZE = 1_000_000  # per-host batch; meant 1_000


@jax.jit
def make_batch(key):
    images = jax.random.normal(key, (BATCH_SIZE, 224, 224, 3), jnp.float32)
    labels = jax.random.randint(key, (BATCH_SIZE,), 0, 1000)
    return images, labels


images, labels = make_batch(jax.random.key(0))
print("batch", images.shape, "mean pixel", float(images.mean()))
