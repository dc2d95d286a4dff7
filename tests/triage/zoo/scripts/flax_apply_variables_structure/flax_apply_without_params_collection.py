"""Flax apply given the inner params dict instead of {'params': ...}.

label: unknown
family: flax_apply_variables_structure
source: google/flax
"""

import flax.linen as nn
import jax
import jax.numpy as jnp

model = nn.Dense(2)
variables = model.init(jax.random.key(0), jnp.ones((1, 3)))
print(model.apply(variables["params"], jnp.ones((4, 3))))
