"""The training file pattern points at records that are not there.

label: input_pipeline
family: missing_input_files
"""

import tensorflow as tf

ds = tf.data.TFRecordDataset(["data/train-00000-of-00004.tfrecord"])
for _record in ds.take(4):
    pass
