"""ParameterServerStrategy coordinator started while the ps and worker tasks are not up.

label: connection_loss
family: remote_worker_unreachable
"""

import os

os.environ["GRPC_FAIL_FAST"] = "true"  # report the unreachable tasks instead of retrying for minutes

import socket

import tensorflow as tf


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


cluster = tf.train.ClusterSpec(
    {
        "chief": [f"127.0.0.1:{free_port()}"],
        "worker": [f"127.0.0.1:{free_port()}"],
        "ps": [f"127.0.0.1:{free_port()}"],
    }
)
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
    cluster, task_type="chief", task_id=0, rpc_layer="grpc"
)
strategy = tf.distribute.ParameterServerStrategy(resolver)
with strategy.scope():
    v = tf.Variable(1.0)
print(v)
