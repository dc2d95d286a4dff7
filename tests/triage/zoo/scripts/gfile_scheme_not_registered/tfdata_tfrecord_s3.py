"""TFRecordDataset reads shards from s3:// paths in a TF build with no S3 file system.

label: local_filesystem
family: gfile_scheme_not_registered
"""

import tensorflow as tf

files = [f"s3://ml-datasets/c4/train-{i:05d}-of-01024.tfrecord" for i in range(4)]
ds = (
    tf.data.TFRecordDataset(files)
    .map(lambda r: tf.io.parse_single_example(r, {"text": tf.io.FixedLenFeature([], tf.string)}))
    .batch(32)
)
for batch in ds.take(1):
    print(batch["text"][:2])
