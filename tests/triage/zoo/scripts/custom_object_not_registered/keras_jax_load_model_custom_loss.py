"""Keras 3 on JAX: a model compiled with a custom loss function is reloaded without custom_objects.

label: checkpoint
family: custom_object_not_registered
source: keras-team/keras
"""

import os
import subprocess
import sys

os.environ["KERAS_BACKEND"] = "jax"

import keras

if len(sys.argv) > 1:

    def huber2(y_true, y_pred):
        return keras.ops.mean(keras.ops.abs(y_true - y_pred))

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile("adam", huber2)
    model.save("model.keras")
else:
    subprocess.run([sys.executable, __file__, "save"], check=True)
    model = keras.models.load_model("model.keras")
    print(model.loss)
