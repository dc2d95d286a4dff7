"""Class names read from a CSV are passed to jnp.array for the training batch.

label: unsupported_dtype
family: string_array_to_jax
"""

import jax.numpy as jnp
import numpy as np

labels = np.array(["cat", "dog", "cat", "bird"])
batch = {"image": jnp.ones((4, 8)), "label": jnp.asarray(labels)}
print(batch["label"])
