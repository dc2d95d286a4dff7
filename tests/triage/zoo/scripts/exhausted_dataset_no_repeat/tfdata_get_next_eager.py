"""Evaluation pulls a fixed number of batches with iterator.get_next() from a finite dataset.

label: input_pipeline
family: exhausted_dataset_no_repeat
"""

import tensorflow as tf

EVAL_STEPS = 20
ds = tf.data.Dataset.range(100).map(lambda i: tf.cast(i, tf.float32)).batch(10)
it = iter(ds)
total = 0.0
for _ in range(EVAL_STEPS):
    total += float(tf.reduce_sum(it.get_next()))
print(total)
