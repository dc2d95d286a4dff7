"""np.load on a gs:// path (the bucket's data) in a JAX training script: plain file APIs cannot open bucket URLs.

label: local_filesystem
family: python_open_on_bucket_path
"""

import jax.numpy as jnp
import numpy as np

data = np.load("gs://my-bucket/datasets/mnist_train.npz")
x = jnp.asarray(data["x"])
print(x.shape)
