"""Trainer opens configs/train.json relative to the current directory, which is not the repo root.

label: unknown
family: missing_local_config_json
"""

import json

import jax

with open("configs/train.json") as f:
    config = json.load(f)
print(config["model"], jax.device_count())
