"""A dataset map parses records with a feature spec the records do not have.

label: input_pipeline
family: missing_input_files
"""

import tensorflow as tf

example = tf.train.Example(
    features=tf.train.Features(feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0]))})
)
ds = tf.data.Dataset.from_tensors(example.SerializeToString()).repeat(4)
spec = {"image": tf.io.FixedLenFeature([784], tf.float32)}
ds = ds.map(lambda r: tf.io.parse_single_example(r, spec))
for _item in ds:
    pass
