"""value_and_grad applied to a Flax model's logits rather than to a loss.

label: compile_error
family: grad_of_non_scalar
source: jax-ml/jax
"""

import flax.linen as nn
import jax
import jax.numpy as jnp

model = nn.Dense(10)
params = model.init(jax.random.key(0), jnp.ones((1, 5)))


def forward(params, x):
    return model.apply(params, x)


val, grads = jax.value_and_grad(forward)(params, jnp.ones((4, 5)))
print(val)
