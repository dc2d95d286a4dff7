"""Variables live on a remote TF worker (tf.distribute.Server) that is killed during training.

label: connection_loss
family: peer_process_died
"""

import os

os.environ["GRPC_FAIL_FAST"] = "true"  # report a dead peer instead of retrying for minutes

import socket
import subprocess
import sys
import time

import tensorflow as tf

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
cluster = {"worker": [f"127.0.0.1:{port}"]}
worker = subprocess.Popen(
    [
        sys.executable,
        "-c",
        "import tensorflow as tf; tf.distribute.Server(tf.train.ClusterSpec("
        f"{cluster!r}), job_name='worker', task_index=0).join()",
    ],
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
for _ in range(120):
    try:
        socket.create_connection(("127.0.0.1", port), 1).close()
        break
    except OSError:
        time.sleep(0.5)

tf.config.experimental_connect_to_cluster(tf.train.ClusterSpec(cluster))
with tf.device("/job:worker/task:0"):
    w = tf.Variable(tf.ones([4, 4]))
for step in range(50):
    with tf.device("/job:worker/task:0"):
        w.assign_add(tf.random.normal([4, 4]) * 0.01)
    print("step", step, float(tf.reduce_sum(w)), flush=True)
    if step == 3:
        worker.kill()  # the worker VM goes away
    time.sleep(0.2)
