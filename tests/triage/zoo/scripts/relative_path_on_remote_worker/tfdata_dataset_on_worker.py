"""A TextLineDataset with a client-local relative path is iterated on a remote worker.

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

os.makedirs("data", exist_ok=True)
with open("data/train.txt", "w") as f:
    f.write("\n".join(f"{i},{i % 2}" for i in range(100)))

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
    ds = tf.data.TextLineDataset("data/train.txt").batch(10)
    it = iter(ds)
    first = next(it)
print(first.numpy()[:3])
worker.kill()
