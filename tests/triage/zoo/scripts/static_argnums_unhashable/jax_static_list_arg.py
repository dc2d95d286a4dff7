"""Layer sizes passed as a list through static_argnums (lists are not hashable).

label: compile_error
family: static_argnums_unhashable
"""

from functools import partial

import jax


@partial(jax.jit, static_argnums=(1,))
def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [jax.random.normal(k, (a, b)) for k, a, b in zip(keys, sizes[:-1], sizes[1:])]


params = init_mlp(jax.random.key(0), [784, 256, 10])
print([p.shape for p in params])
