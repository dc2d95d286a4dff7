"""A variable made under one MirroredStrategy is updated inside another strategy's scope.

label: strategy_scope
family: variables_under_other_strategy
"""

import tensorflow as tf

first = tf.distribute.MirroredStrategy(["/cpu:0"])
second = tf.distribute.MirroredStrategy(["/cpu:0"])
with first.scope():
    v = tf.Variable(1.0)
with second.scope():
    v.assign_add(1.0)
