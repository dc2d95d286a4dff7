"""Normalisation divides by a per-batch std that is 0 for a constant feature; checkify float_checks reports it.

label: nan_inf
family: checkify_nan
"""

import jax
import jax.numpy as jnp
from jax.experimental import checkify


def standardise(x):
    return (x - x.mean(0)) / x.std(0)


checked = jax.jit(checkify.checkify(standardise, errors=checkify.float_checks))
err, out = checked(jnp.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]))
err.throw()
print(out)
