"""Keras Model.train_step override logs the gradient norm with tf.print; fit runs with jit_compile=True.

label: unsupported_op
family: print_op_in_jit_compile
"""

import keras
import numpy as np
import tensorflow as tf


class Debuggable(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
        grads = tape.gradient(loss, self.trainable_variables)
        tf.print("grad norm", tf.linalg.global_norm(grads))
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


inputs = keras.Input(shape=(4,))
model = Debuggable(inputs, keras.layers.Dense(1)(inputs))
model.compile(optimizer="sgd", loss="mse", jit_compile=True)
model.fit(np.ones((32, 4), "float32"), np.zeros((32, 1), "float32"), epochs=1, verbose=2)
