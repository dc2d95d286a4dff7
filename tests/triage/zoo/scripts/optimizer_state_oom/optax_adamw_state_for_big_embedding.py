"""optax.adamw state (two more copies) initialised for a 3.2 GB embedding table under a 6 GiB limit.

label: oom
family: optimizer_state_oom
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))

import jax
import jax.numpy as jnp
import optax

params = {"embedding": jnp.zeros((200_000, 4096))}
opt = optax.adamw(1e-4)
state = jax.jit(opt.init)(params)
print(jax.tree.map(jnp.shape, state))
