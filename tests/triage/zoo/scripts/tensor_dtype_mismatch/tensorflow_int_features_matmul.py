"""Custom loop multiplies int32 count features by float32 weights with tf.matmul.

label: unsupported_dtype
family: tensor_dtype_mismatch
"""

import numpy as np
import tensorflow as tf

counts = np.random.randint(0, 5, size=(32, 6))  # int64 numpy -> int64 tensor
w = tf.Variable(tf.random.normal([6, 1]))
opt = tf.keras.optimizers.SGD(0.01)

for step in range(2):
    with tf.GradientTape() as tape:
        pred = tf.matmul(counts, w)
        loss = tf.reduce_mean(pred**2)
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    print(step, float(loss))
