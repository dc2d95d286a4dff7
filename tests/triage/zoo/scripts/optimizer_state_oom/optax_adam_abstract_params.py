"""Params planned with eval_shape for a 60B model; optax adam state is then created for real on one host.

label: oom
family: optimizer_state_oom
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))  # keep the host safe: fail fast

import jax
import jax.numpy as jnp
import optax

LAYERS, D = 48, 8192


def init_params(key):
    keys = jax.random.split(key, LAYERS)
    return {
        f"layer_{i}": {
            "w_in": jax.random.normal(k, (D, 4 * D), jnp.bfloat16),
            "w_out": jax.random.normal(k, (4 * D, D), jnp.bfloat16),
        }
        for i, k in enumerate(keys)
    }


abstract = jax.eval_shape(init_params, jax.random.key(0))
n = sum(x.size for x in jax.tree_util.tree_leaves(abstract))
print(f"planning {n / 1e9:.1f}B parameters")

tx = optax.adamw(3e-4)
# the mu/nu buffers are materialised unsharded on this host
opt_state = jax.jit(tx.init)(jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, jnp.float32), abstract))
print(jax.tree_util.tree_structure(opt_state))
