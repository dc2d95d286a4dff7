"""Variable-length token lists packed with np.array(dtype=object) then given to from_tensor_slices.

label: unsupported_dtype
family: object_array_to_tensor
"""

import numpy as np
import tensorflow as tf

sentences = [[4, 12, 9], [7, 1], [3, 3, 8, 2, 5]]
tokens = np.array(sentences, dtype=object)
ds = tf.data.Dataset.from_tensor_slices(tokens).batch(2)
for b in ds:
    print(b)
