"""An integer seed is passed where jax.random expects a key.

label: unknown
family: prng_key_misuse
"""

import jax

noise = jax.random.normal(42, (3,))
print(noise)
