"""A tf.distribute.Server is started on a port another worker process already bound.

label: connection_loss
family: coordinator_port_in_use
source: jax-ml/jax
"""

import socket

import tensorflow as tf

busy = socket.socket()
busy.bind(("127.0.0.1", 0))
busy.listen(1)
port = busy.getsockname()[1]
cluster = tf.train.ClusterSpec({"worker": [f"127.0.0.1:{port}"]})
server = tf.distribute.Server(cluster, job_name="worker", task_index=0)
print(server.target)
