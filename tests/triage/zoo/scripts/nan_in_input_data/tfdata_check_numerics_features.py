"""Feature columns with missing values stored as NaN; the pipeline validates them with check_numerics.

label: nan_inf
family: nan_in_input_data
why: the fix is cleaning/imputing the NaN values in the data
"""

import numpy as np
import tensorflow as tf

features = np.random.rand(100, 5).astype("float32")
features[37, 2] = np.nan  # a missing sensor reading

ds = tf.data.Dataset.from_tensor_slices(features)
ds = ds.map(lambda x: tf.debugging.check_numerics(x, "input features")).batch(10)
for i, b in enumerate(ds):
    print(i, float(tf.reduce_mean(b)))
