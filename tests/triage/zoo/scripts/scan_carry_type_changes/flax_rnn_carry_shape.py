"""Hand-written RNN via lax.scan whose step returns a hidden state of a different width than the carry.

label: compile_error
family: scan_carry_type_changes
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
from jax import lax


class SimpleRNN(nn.Module):
    hidden: int = 16

    @nn.compact
    def __call__(self, xs):
        w_x = self.param("w_x", nn.initializers.lecun_normal(), (xs.shape[-1], self.hidden))
        w_h = self.param("w_h", nn.initializers.lecun_normal(), (self.hidden, self.hidden * 2))

        def step(h, x):
            h = jnp.tanh(x @ w_x + h @ w_h[:, : self.hidden] + (h @ w_h)[..., :1])
            h = jnp.concatenate([h, h], -1)  # returns 2*hidden by mistake
            return h, h

        h0 = jnp.zeros((xs.shape[1], self.hidden))
        _, hs = lax.scan(step, h0, xs)
        return hs


xs = jnp.ones((5, 2, 3))
model = SimpleRNN()
print(model.init(jax.random.key(0), xs))
