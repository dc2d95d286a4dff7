"""optax.AdamW (PyTorch spelling) instead of optax.adamw.

label: unknown
family: attribute_typo
"""

import jax.numpy as jnp
import optax

tx = optax.AdamW(learning_rate=1e-3, weight_decay=0.01)
print(tx.init({"w": jnp.ones(3)}))
