"""MultiWorkerMirroredStrategy on worker 0 while worker 1 from TF_CONFIG never started.

label: connection_loss
family: collective_peer_missing
why: TF waits for the missing worker for an hour; the script's faulthandler watchdog dumps the stacks and exits 1 after 25 s
"""

import faulthandler
import json
import os
import socket

os.environ["GRPC_FAIL_FAST"] = "true"  # report the missing peer instead of retrying for minutes


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


os.environ["TF_CONFIG"] = json.dumps(
    {
        "cluster": {"worker": [f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]},
        "task": {"type": "worker", "index": 0},
    }
)

import tensorflow as tf

# dump the stacks and exit 1 if we are still stuck after 25 s
faulthandler.dump_traceback_later(25, exit=True)

strategy = tf.distribute.MultiWorkerMirroredStrategy(
    communication_options=tf.distribute.experimental.CommunicationOptions(timeout_seconds=10)
)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
model.fit(tf.ones([16, 4]), tf.zeros([16, 1]), epochs=1)
