"""from_tensor_slices given 100 feature rows and 98 labels.

label: input_pipeline
family: tensor_slices_length_mismatch
source: tensorflow/tensorflow
"""

import numpy as np
import tensorflow as tf

features = np.ones((100, 5), np.float32)
labels = np.zeros((98,), np.int64)  # two rows were filtered from the label file only
ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(10)
print(ds)
