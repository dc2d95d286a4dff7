"""Keras model declared with a fixed batch_size; the last partial batch of the dataset breaks it.

label: dynamic_shape
family: last_partial_batch_static_step
why: the fix is drop_remainder=True (a static batch size), not a change to the model
"""

import keras
import numpy as np
import tensorflow as tf

BATCH = 32

inputs = keras.Input(shape=(10,), batch_size=BATCH)
x = keras.layers.Dense(16)(inputs)
x = keras.layers.Reshape((BATCH * 16,))(keras.ops.reshape(x, (1, BATCH * 16)))
outputs = keras.layers.Dense(BATCH)(x)
model = keras.Model(inputs, outputs)
model.compile("adam", "mse")

x_train = np.random.rand(100, 10).astype("float32")  # 100 = 3 full batches + 4
ds = tf.data.Dataset.from_tensor_slices((x_train, np.zeros((100, BATCH), "float32"))).batch(BATCH)
model.fit(ds, epochs=1)
