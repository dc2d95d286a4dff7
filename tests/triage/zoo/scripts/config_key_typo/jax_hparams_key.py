"""Train script reads hparams['learning_rate'] but the config dict names it 'lr'.

label: unknown
family: config_key_typo
"""

import jax
import jax.numpy as jnp
import optax

hparams = {"lr": 3e-4, "batch_size": 128, "warmup_steps": 500}

schedule = optax.linear_schedule(0.0, hparams["learning_rate"], hparams["warmup_steps"])
tx = optax.adam(schedule)
print(tx.init({"w": jnp.ones(3)}), jax.device_count())
