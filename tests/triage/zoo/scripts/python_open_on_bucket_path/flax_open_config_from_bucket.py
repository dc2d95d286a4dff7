"""open() on a gs:// config path while building a Flax model.

label: local_filesystem
family: python_open_on_bucket_path
"""

import json

import flax.linen as nn

with open("gs://my-bucket/configs/model.json") as fh:
    cfg = json.load(fh)
model = nn.Dense(cfg["features"])
print(model)
