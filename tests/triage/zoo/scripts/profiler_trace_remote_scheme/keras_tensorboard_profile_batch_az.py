"""Keras TensorBoard callback with profiling writes to an az:// log_dir.

label: local_filesystem
family: profiler_trace_remote_scheme
source: tensorflow/io
"""

import keras
import numpy as np

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
tb = keras.callbacks.TensorBoard(log_dir="az://account/logs/run-3", profile_batch=1)
model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=1, callbacks=[tb])
