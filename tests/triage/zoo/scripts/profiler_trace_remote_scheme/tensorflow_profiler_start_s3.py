"""tf.profiler.experimental.start logs a trace to an s3:// directory.

label: local_filesystem
family: profiler_trace_remote_scheme
source: tensorflow/io
"""

import tensorflow as tf

tf.profiler.experimental.start("s3://profiles/run-7")
x = tf.random.normal((256, 256))
for _ in range(3):
    x = tf.matmul(x, x) / 256.0
tf.profiler.experimental.stop()
