"""Remote eager execution on a worker host:port where no tf.distribute.Server is running.

label: connection_loss
family: remote_worker_unreachable
"""

import os

os.environ["GRPC_FAIL_FAST"] = "true"  # report the unreachable worker instead of retrying for minutes

import tensorflow as tf

tf.config.experimental_connect_to_host("127.0.0.1:1", job_name="worker")
with tf.device("/job:worker/replica:0/task:0/device:CPU:0"):
    x = tf.random.normal([2, 2])
print(x)
