"""A .keras model with a custom layer is loaded in a new process without registering the layer.

label: checkpoint
family: custom_object_not_registered
source: keras-team/keras
"""

import subprocess
import sys

import keras

if len(sys.argv) > 1:

    class Scale(keras.layers.Layer):
        def call(self, x):
            return x * 2.0

    model = keras.Sequential([keras.Input((3,)), Scale(), keras.layers.Dense(1)])
    model.save("model.keras")
else:
    subprocess.run([sys.executable, __file__, "save"], check=True)
    model = keras.models.load_model("model.keras")
    print(model.summary())
