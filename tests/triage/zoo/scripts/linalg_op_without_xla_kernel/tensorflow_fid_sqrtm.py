"""FID metric uses tf.linalg.sqrtm inside a jit_compile=True eval function.

label: unsupported_op
family: linalg_op_without_xla_kernel
"""

import tensorflow as tf


@tf.function(jit_compile=True)
def frechet_distance(mu1, sigma1, mu2, sigma2):
    covmean = tf.linalg.sqrtm(tf.cast(sigma1 @ sigma2, tf.complex64))
    return tf.reduce_sum((mu1 - mu2) ** 2) + tf.linalg.trace(sigma1 + sigma2 - 2.0 * tf.math.real(covmean))


d = 16
print(frechet_distance(tf.zeros([d]), tf.eye(d), tf.ones([d]), 2.0 * tf.eye(d)))
