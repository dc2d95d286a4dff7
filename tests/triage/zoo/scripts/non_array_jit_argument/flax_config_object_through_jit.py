"""A config dataclass instance is passed as a traced argument to a jitted Flax apply.

label: compile_error
family: non_array_jit_argument
source: jax-ml/jax
"""

import dataclasses

import flax.linen as nn
import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Config:
    dropout: float = 0.1


model = nn.Dense(4)
params = model.init(jax.random.key(0), jnp.ones((1, 3)))


@jax.jit
def forward(params, x, cfg):
    return model.apply(params, x) * (1 - cfg.dropout)


print(forward(params, jnp.ones((2, 3)), Config()))
