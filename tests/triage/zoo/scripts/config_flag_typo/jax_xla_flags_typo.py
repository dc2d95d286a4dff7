"""XLA_FLAGS contains a misspelt flag; XLA aborts at backend start-up.

label: unknown
family: config_flag_typo
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_cont=8"

import jax

print(jax.devices())
