"""Example ids (numpy strings) left in the batch passed to a jitted eval step.

label: unsupported_dtype
family: string_tensor_into_jit_compile
"""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def eval_step(params, batch):
    logits = batch["x"] @ params
    return jnp.mean(jnp.argmax(logits, -1) == batch["y"])


batch = {
    "x": np.ones((4, 3), np.float32),
    "y": np.zeros(4, np.int32),
    "id": np.array(["a1", "b2", "c3", "d4"]),
}
print(eval_step(jnp.ones((3, 2)), batch))
