"""np.concatenate of numeric and one-hot feature blocks with different row counts.

label: unknown
family: numpy_preprocessing_error
"""

import numpy as np
import tensorflow as tf

numeric = np.random.rand(1000, 4).astype("float32")
categories = np.random.randint(0, 5, size=999)  # one row dropped by a dedup step
onehot = np.eye(5, dtype="float32")[categories]
features = np.concatenate([numeric, onehot], axis=1)
ds = tf.data.Dataset.from_tensor_slices(features).batch(32)
