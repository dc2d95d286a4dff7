"""Flax trainer takes the coordinator from an env var that still points at a dead host:port.

label: connection_loss
family: coordinator_unreachable
"""

import os

os.environ.setdefault("TRAIN_COORDINATOR", "127.0.0.1:1")
os.environ.setdefault("TRAIN_PROCESS_ID", "3")

import flax.linen as nn
import jax
import jax.numpy as jnp


def main():
    jax.distributed.initialize(
        os.environ["TRAIN_COORDINATOR"],
        num_processes=4,
        process_id=int(os.environ["TRAIN_PROCESS_ID"]),
        initialization_timeout=5,
    )
    model = nn.Dense(10)
    params = model.init(jax.random.key(jax.process_index()), jnp.ones((1, 4)))
    print("process", jax.process_index(), "initialised", jax.tree_util.tree_map(jnp.shape, params))


if __name__ == "__main__":
    main()
