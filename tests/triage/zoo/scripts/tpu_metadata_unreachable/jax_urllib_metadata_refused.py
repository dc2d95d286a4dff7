"""Launcher reads the TPU worker list from the metadata server address it was given, which refuses connections.

label: connection_loss
family: tpu_metadata_unreachable
source: jax-ml/jax
"""

import urllib.request

req = urllib.request.Request(
    "http://127.0.0.1:1/computeMetadata/v1/instance/attributes/tpu-env", headers={"Metadata-Flavor": "Google"}
)
with urllib.request.urlopen(req, timeout=5) as resp:
    print(resp.read())
