"""Dataset.batch(..., drop_reminder=True) misspelled.

label: unknown
family: wrong_keyword_argument
"""

import tensorflow as tf

ds = tf.data.Dataset.range(100).batch(32, drop_reminder=True)
print(list(ds.as_numpy_iterator())[-1])
