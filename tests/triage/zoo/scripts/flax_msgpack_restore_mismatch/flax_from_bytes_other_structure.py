"""flax.serialization.from_bytes restores a msgpack checkpoint into a target with another layer layout.

label: checkpoint
family: flax_msgpack_restore_mismatch
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import serialization

old = nn.Dense(4).init(jax.random.key(0), jnp.ones((1, 3)))
blob = serialization.to_bytes(old)
new = nn.Sequential([nn.Dense(4), nn.Dense(2)]).init(jax.random.key(0), jnp.ones((1, 3)))
restored = serialization.from_bytes(new, blob)
print(jax.tree.map(jnp.shape, restored))
