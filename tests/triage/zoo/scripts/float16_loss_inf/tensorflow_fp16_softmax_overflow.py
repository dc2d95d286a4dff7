"""A TF custom loop in float16 computes exp of large logits; the printed loss is inf and the loop raises.

label: nan_inf
family: float16_loss_inf
source: tensorflow/tensorflow
"""

import tensorflow as tf

logits = tf.constant([[20.0, 3.0, 1.0]], tf.float16)
labels = tf.constant([[0.0, 1.0, 0.0]], tf.float16)
probs = tf.exp(logits) / tf.reduce_sum(tf.exp(logits), axis=-1, keepdims=True)
loss = -tf.reduce_sum(labels * tf.math.log(probs))
print("loss", float(loss))
if not tf.math.is_finite(loss):
    raise ValueError(f"loss {float(loss)}: float16 overflow in the hand-written softmax")
