"""A relative data path is opened by an op placed on a remote worker, whose working directory differs.

label: local_filesystem
family: relative_path_on_remote_worker
"""

import os

os.environ["GRPC_FAIL_FAST"] = "true"

import socket
import subprocess
import sys
import tempfile
import time

import tensorflow as tf

# the data exists next to this (client) process only
os.makedirs("data", exist_ok=True)
with open("data/vocab.txt", "w") as f:
    f.write("hello\nworld\n")

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
    cwd=tempfile.mkdtemp(),
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
    vocab_size = tf.size(tf.strings.split(tf.io.read_file("data/vocab.txt")))
print("vocab size:", int(vocab_size))
worker.kill()
