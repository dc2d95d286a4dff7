"""A Flax module instance is called directly instead of through init/apply.

label: unknown
family: flax_module_definition_mistake
"""

import flax.linen as nn
import jax.numpy as jnp

model = nn.Dense(4)
print(model(jnp.ones((2, 3))))
