"""tf.data map function takes one argument while the dataset yields (image, label) pairs.

label: input_pipeline
family: dataset_map_arity
source: tensorflow/datasets
"""

import tensorflow as tf

ds = tf.data.Dataset.from_tensor_slices((tf.ones((8, 4)), tf.zeros((8,), tf.int32)))


def normalize(example):
    image, label = example
    return image / 255.0, label


ds = ds.map(normalize).batch(4)
print(next(iter(ds)))
