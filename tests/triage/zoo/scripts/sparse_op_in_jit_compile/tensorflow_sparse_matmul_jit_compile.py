"""tf.sparse.sparse_dense_matmul inside a jit_compile=True training step.

label: unsupported_op
family: sparse_op_in_jit_compile
source: tensorflow/tensorflow
"""

import tensorflow as tf

sp = tf.sparse.SparseTensor(indices=[[0, 1], [2, 3]], values=[1.0, 2.0], dense_shape=[4, 8])
w = tf.Variable(tf.ones((8, 2)))


@tf.function(jit_compile=True)
def step(sp_indices, sp_values):
    x = tf.sparse.SparseTensor(sp_indices, sp_values, [4, 8])
    return tf.reduce_sum(tf.sparse.sparse_dense_matmul(x, w))


print(step(sp.indices, sp.values))
