"""A tf.train.Checkpoint written for one embedding size is restored into another.

label: checkpoint
family: restore_into_other_model
"""

import tensorflow as tf

ckpt = tf.train.Checkpoint(emb=tf.Variable(tf.zeros([1000, 64])))
path = ckpt.save("ckpt/run")
other = tf.train.Checkpoint(emb=tf.Variable(tf.zeros([1000, 128])))
other.restore(path)
