"""Loss drops padding tokens with a boolean index inside a jitted train step.

label: dynamic_shape
family: jit_on_boolean_mask
"""

import jax
import jax.numpy as jnp
import optax

PAD = 0


def loss_fn(params, tokens, targets):
    logits = tokens[..., None] * params["w"]
    mask = targets != PAD
    per_token = optax.softmax_cross_entropy_with_integer_labels(logits, targets)
    return per_token[mask].mean()  # keep only real tokens


@jax.jit
def train_step(params, tokens, targets):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), loss


params = {"w": jnp.ones((32,))}
tokens = jnp.array([[3.0, 4.0, 0.0, 0.0], [1.0, 2.0, 5.0, 0.0]])
targets = jnp.array([[3, 4, 0, 0], [1, 2, 5, 0]])
params, loss = train_step(params, tokens, targets)
print(loss)
