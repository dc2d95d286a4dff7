"""TF cluster spec lists the worker's HTTP metrics port instead of its gRPC port.

label: connection_loss
family: coordinator_wrong_service
"""

import os

os.environ["GRPC_FAIL_FAST"] = "true"

import http.server
import threading

import tensorflow as tf

metrics = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
threading.Thread(target=metrics.serve_forever, daemon=True).start()
port = metrics.server_address[1]

tf.config.experimental_connect_to_cluster(tf.train.ClusterSpec({"worker": [f"127.0.0.1:{port}"]}))
with tf.device("/job:worker/task:0"):
    print(tf.reduce_sum(tf.ones([3])))
