"""tf.summary file writer logging to an s3:// log dir.

label: local_filesystem
family: summary_dir_unsupported_scheme
"""

import tensorflow as tf

writer = tf.summary.create_file_writer("s3://ml-runs/exp42/logs")
with writer.as_default():
    tf.summary.write("loss", tf.constant(0.5), step=0)
writer.flush()
