"""optax.multi_transform given a label tree that does not match the parameter tree.

label: compile_error
family: optax_update_tree_mismatch
source: marin-community/marin
"""

import jax.numpy as jnp
import optax

params = {"encoder": {"w": jnp.ones((3, 3))}, "head": {"w": jnp.ones((3, 1))}}
labels = {"encoder": "frozen", "head": "train", "extra": "train"}
opt = optax.multi_transform({"train": optax.adam(1e-3), "frozen": optax.set_to_zero()}, labels)
state = opt.init(params)
print(state)
