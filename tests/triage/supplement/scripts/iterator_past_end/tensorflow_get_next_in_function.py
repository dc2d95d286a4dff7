"""A custom loop pulls more batches from a finite dataset than it holds (no repeat()).

label: input_pipeline
family: iterator_past_end
"""

import tensorflow as tf

ds = tf.data.Dataset.range(100).batch(32)
it = iter(ds)


@tf.function
def pull():
    return it.get_next()


for _step in range(10):
    pull()
