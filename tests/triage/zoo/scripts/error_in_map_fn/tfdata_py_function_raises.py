"""Label mapping inside a tf.py_function raises KeyError for a class missing from the mapping.

label: input_pipeline
family: error_in_map_fn
"""

import tensorflow as tf

CLASS_TO_ID = {"cat": 0, "dog": 1}


def to_id(name):
    return CLASS_TO_ID[name.numpy().decode()]


ds = tf.data.Dataset.from_tensor_slices(["cat", "dog", "horse", "cat"])
ds = ds.map(lambda n: tf.py_function(to_id, [n], tf.int64)).batch(2)
for b in ds:
    print(b)
