"""A TF launcher asks the metadata endpoint for worker-network-endpoints and the connection is refused.

label: connection_loss
family: tpu_metadata_unreachable
source: jax-ml/jax
"""

import http.client

import tensorflow as tf

conn = http.client.HTTPConnection("127.0.0.1", 1, timeout=5)
conn.request(
    "GET",
    "/computeMetadata/v1/instance/attributes/worker-network-endpoints",
    headers={"Metadata-Flavor": "Google"},
)
workers = conn.getresponse().read().decode().split(",")
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(tf.train.ClusterSpec({"worker": workers}))
print(resolver)
