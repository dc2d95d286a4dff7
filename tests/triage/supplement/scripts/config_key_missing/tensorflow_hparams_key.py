"""The training config dict lacks a key the input function reads (a typo in the config file).

label: unknown
family: config_key_missing
"""

import tensorflow as tf

hparams = {"learning_rate": 1e-3, "batch": 32}


def make_dataset(params):
    ds = tf.data.Dataset.range(100)
    return ds.batch(params["batch_size"], drop_remainder=True)


for batch in make_dataset(hparams).take(1):
    print(batch)
