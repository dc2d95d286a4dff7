"""A per-replica batch size computed by integer division comes out as 0 and is passed to Dataset.batch.

label: input_pipeline
family: batch_size_zero
"""

import tensorflow as tf

global_batch, replicas = 4, 8
ds = tf.data.Dataset.range(100).batch(global_batch // replicas)
print(next(iter(ds)))
