"""tf.train.Checkpoint restore of an older checkpoint with assert_consumed after the model gained a head.

label: checkpoint
family: checkpoint_assert_consumed
source: tensorflow/tensorflow
"""

import tensorflow as tf

old = tf.train.Checkpoint(encoder=tf.Variable(tf.ones((4, 4))), step=tf.Variable(10))
path = old.save("ckpt/model")
new = tf.train.Checkpoint(
    encoder=tf.Variable(tf.zeros((4, 4))), head=tf.Variable(tf.zeros((4, 2))), step=tf.Variable(0)
)
new.restore(path).assert_consumed()
