"""TPUClusterResolver given a grpc:// address of a TPU that is not reachable, then initialize_tpu_system.

label: connection_loss
family: tpu_cluster_resolver_unreachable
"""

import os

os.environ["GRPC_FAIL_FAST"] = "true"  # report the unreachable TPU instead of retrying for minutes

import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="grpc://127.0.0.1:1")
tf.config.experimental_connect_to_cluster(resolver)
tf.tpu.experimental.initialize_tpu_system(resolver)
print("TPUs:", tf.config.list_logical_devices("TPU"))
