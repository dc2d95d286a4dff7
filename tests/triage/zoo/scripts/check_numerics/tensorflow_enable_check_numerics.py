"""tf.debugging.enable_check_numerics() turned on while a feature transform takes log of negative values.

label: nan_inf
family: check_numerics
"""

import tensorflow as tf

tf.debugging.enable_check_numerics()

features = tf.constant([[3.0, 0.5], [-1.0, 2.0]])  # a standardised column went negative
log_features = tf.math.log(features)
print(log_features)
