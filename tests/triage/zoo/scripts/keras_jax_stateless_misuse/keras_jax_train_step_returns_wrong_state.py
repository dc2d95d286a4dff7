"""Keras 3 on JAX: a custom train_step returns the state tuple in the wrong order.

label: compile_error
family: keras_jax_stateless_misuse
source: keras-team/keras
"""

import os

os.environ["KERAS_BACKEND"] = "jax"

import jax
import keras
import numpy as np


class Model(keras.Model):
    def train_step(self, state, data):
        tv, ntv, ov, mv = state
        x, y = data

        def loss_fn(tv):
            pred, ntv2 = self.stateless_call(tv, ntv, x, training=True)
            return keras.ops.mean((pred - y) ** 2), ntv2

        (loss, ntv), grads = jax.value_and_grad(loss_fn, has_aux=True)(tv)
        tv, ov = self.optimizer.stateless_apply(ov, grads, tv)
        return {"loss": loss}, (ov, tv, ntv, mv)


inputs = keras.Input((4,))
model = Model(inputs, keras.layers.Dense(1)(keras.layers.Dense(8)(inputs)))
model.compile("adam", "mse")
model.fit(np.ones((16, 4)), np.ones((16, 1)), batch_size=8, epochs=1, verbose=0)
