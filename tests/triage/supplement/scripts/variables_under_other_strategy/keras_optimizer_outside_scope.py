"""The model is built outside the strategy scope and its optimizer's slots inside it.

label: strategy_scope
family: variables_under_other_strategy
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
with strategy.scope():
    opt = tf.keras.optimizers.Adam()
    opt.build(model.trainable_variables)
