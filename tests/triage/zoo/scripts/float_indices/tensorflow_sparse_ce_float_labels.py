"""sparse_softmax_cross_entropy_with_logits given float32 labels (read from a float column).

label: unsupported_dtype
family: float_indices
"""

import tensorflow as tf

logits = tf.random.normal([4, 3])
labels = tf.constant([0.0, 2.0, 1.0, 1.0])
loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
print(tf.reduce_mean(loss))
