"""optax.adam(lr=...) instead of learning_rate=....

label: unknown
family: wrong_keyword_argument
"""

import jax.numpy as jnp
import optax

tx = optax.adam(lr=1e-3)
print(tx.init({"w": jnp.ones(2)}))
