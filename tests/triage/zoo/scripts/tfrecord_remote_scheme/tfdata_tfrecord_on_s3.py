"""TFRecordDataset reads shards from s3:// with a TensorFlow build that has no S3 file system.

label: local_filesystem
family: tfrecord_remote_scheme
source: tensorflow/tensorflow
"""

import tensorflow as tf

files = ["s3://training-data/imagenet/train-00000-of-01024"]
ds = tf.data.TFRecordDataset(files)
for rec in ds.take(1):
    print(len(rec.numpy()))
