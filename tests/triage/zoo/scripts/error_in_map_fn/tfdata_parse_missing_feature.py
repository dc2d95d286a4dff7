"""parse_single_example asks for a required 'label' feature that the records were written without.

label: input_pipeline
family: error_in_map_fn
"""

import os
import tempfile

import tensorflow as tf

path = os.path.join(tempfile.mkdtemp(), "train.tfrecord")
with tf.io.TFRecordWriter(path) as w:
    for i in range(4):
        ex = tf.train.Example(
            features=tf.train.Features(
                feature={
                    "image": tf.train.Feature(float_list=tf.train.FloatList(value=[0.1 * i] * 4)),
                    "class_id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
                }
            )
        )
        w.write(ex.SerializeToString())

spec = {"image": tf.io.FixedLenFeature([4], tf.float32), "label": tf.io.FixedLenFeature([], tf.int64)}
ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec)).batch(2)
for batch in ds:
    print(batch["label"])
