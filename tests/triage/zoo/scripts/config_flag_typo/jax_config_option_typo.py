"""jax.config.update called with a misspelt option name.

label: unknown
family: config_flag_typo
"""

import jax

jax.config.update("jax_enable_x46", True)
print(jax.numpy.ones(2).dtype)
