"""Loads the full token corpus into one host array to jax.device_put it in one go.

label: oom
family: host_array_too_large
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # keep the host safe: fail fast

import jax
import numpy as np

NUM_DOCS, SEQ_LEN = 400_000_000, 2048

tokens = np.ones((NUM_DOCS, SEQ_LEN), dtype=np.int32)
train = jax.device_put(tokens)
print(train.shape)
