"""Keras 3 on JAX: stateless_call given the optimizer's variables in place of the model's.

label: compile_error
family: keras_jax_stateless_misuse
source: keras-team/keras
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import jax
import keras
import numpy as np

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(1)])
opt = keras.optimizers.Adam()
opt.build(model.trainable_variables)
tv = [v.value for v in opt.variables]
ntv = [v.value for v in model.non_trainable_variables]
out, _ = jax.jit(model.stateless_call)(tv, ntv, np.ones((2, 4)))
print(out)
