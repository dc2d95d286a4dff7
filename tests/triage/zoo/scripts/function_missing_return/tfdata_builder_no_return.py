"""Dataset builder function forgets to return the dataset, so the caller gets None.

label: unknown
family: function_missing_return
"""

import tensorflow as tf


def make_dataset(batch_size):
    ds = tf.data.Dataset.range(1000).map(lambda x: tf.cast(x, tf.float32))
    ds = ds.shuffle(100).batch(batch_size)


train_ds = make_dataset(32).prefetch(tf.data.AUTOTUNE)
