"""The complex output of tf.signal.rfft is fed to tf.nn.relu without taking its magnitude.

label: unsupported_dtype
family: complex_into_real_op
"""

import tensorflow as tf


@tf.function
def spectral_features(x):
    spec = tf.signal.rfft(x)
    return tf.nn.relu(spec)


print(spectral_features(tf.ones((2, 16))))
