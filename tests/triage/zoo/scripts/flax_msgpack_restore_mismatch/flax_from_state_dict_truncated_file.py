"""A msgpack checkpoint cut short by a full disk is read back with from_bytes.

label: checkpoint
family: flax_msgpack_restore_mismatch
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import serialization

params = nn.Dense(64).init(jax.random.key(0), jnp.ones((1, 64)))
blob = serialization.to_bytes(params)
with open("model.msgpack", "wb") as fh:
    fh.write(blob[: len(blob) // 2])
with open("model.msgpack", "rb") as fh:
    print(serialization.from_bytes(params, fh.read()))
