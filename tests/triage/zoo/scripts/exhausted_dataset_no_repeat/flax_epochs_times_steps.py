"""Flax trainer computes total steps as epochs * steps_per_epoch but builds the iterator for one epoch.

label: input_pipeline
family: exhausted_dataset_no_repeat
"""

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training import train_state

EPOCHS, BATCH = 3, 16
x_train = np.random.rand(160, 4).astype("float32")
y_train = np.random.rand(160, 1).astype("float32")
steps_per_epoch = len(x_train) // BATCH


def batches(x, y):
    for i in range(0, len(x), BATCH):
        yield x[i : i + BATCH], y[i : i + BATCH]


model = nn.Dense(1)
state = train_state.TrainState.create(
    apply_fn=model.apply, params=model.init(jax.random.key(0), x_train[:1]), tx=optax.sgd(0.1)
)


@jax.jit
def train_step(state, x, y):
    grads = jax.grad(lambda p: jnp.mean((state.apply_fn(p, x) - y) ** 2))(state.params)
    return state.apply_gradients(grads=grads)


it = batches(x_train, y_train)
for step in range(EPOCHS * steps_per_epoch):
    x, y = next(it)
    state = train_step(state, x, y)
print("done", state.step)
