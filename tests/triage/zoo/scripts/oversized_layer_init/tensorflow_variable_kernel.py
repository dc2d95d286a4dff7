"""Custom TF module creates its kernel from shapes multiplied instead of listed.

label: oom
family: oversized_layer_init
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # keep the host safe: fail fast

import tensorflow as tf


class Projection(tf.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        # meant [d_in, d_out]; wrote the product for the first dimension
        self.w = tf.Variable(tf.random.normal([d_in * d_out, d_out], stddev=0.02), name="w")
        self.b = tf.Variable(tf.zeros([d_out]), name="b")

    def __call__(self, x):
        return x @ self.w + self.b


proj = Projection(4096, 16384)
print(proj(tf.ones([2, 4096])).shape)
