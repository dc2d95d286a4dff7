"""tf.sparse.reorder and sparse.reduce_sum of a bag-of-words batch inside jit_compile=True.

label: unsupported_op
family: sparse_op_in_jit_compile
source: tensorflow/tensorflow
"""

import tensorflow as tf


@tf.function(jit_compile=True)
def bag_sizes(indices, values):
    sp = tf.sparse.reorder(tf.sparse.SparseTensor(indices, values, [3, 10]))
    return tf.sparse.reduce_sum(sp, axis=1)


print(bag_sizes(tf.constant([[2, 1], [0, 3], [0, 1]], tf.int64), tf.constant([1.0, 2.0, 3.0])))
