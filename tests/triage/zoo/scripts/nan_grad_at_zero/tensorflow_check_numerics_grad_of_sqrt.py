"""TF gradient of an L2 distance between identical embeddings is NaN; check_numerics on the gradient fires.

label: nan_inf
family: nan_grad_at_zero
"""

import tensorflow as tf

a = tf.Variable([1.0, 2.0])
b = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    dist = tf.sqrt(tf.reduce_sum((a - b) ** 2)) * 0.0 + tf.norm(a - b)
g = tape.gradient(dist, a)
tf.debugging.check_numerics(g, "gradient of distance")
print(g)
