"""A Flax linen Module declares a field without a default after one with a default.

label: unknown
family: flax_module_definition_mistake
"""

import flax.linen as nn


class Block(nn.Module):
    dropout: float = 0.1
    features: int

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.features)(x)


print(Block(features=4))
