"""A Keras-on-JAX launcher fetches the worker list from a metadata address that refuses connections before keras.distribution.initialize.

label: connection_loss
family: tpu_metadata_unreachable
source: jax-ml/jax
"""

import os
import urllib.request

os.environ["KERAS_BACKEND"] = "jax"

import keras

req = urllib.request.Request(
    "http://127.0.0.1:1/computeMetadata/v1/instance/attributes/worker-network-endpoints",
    headers={"Metadata-Flavor": "Google"},
)
workers = urllib.request.urlopen(req, timeout=5).read().decode().split(",")
keras.distribution.initialize(job_addresses=",".join(workers), num_processes=len(workers), process_id=0)
