"""flax.linen.Dense(units=...) (the Keras name) instead of features=....

label: unknown
family: wrong_keyword_argument
"""

import flax.linen as nn
import jax
import jax.numpy as jnp

layer = nn.Dense(units=128)
print(layer.init(jax.random.key(0), jnp.ones((1, 4))))
