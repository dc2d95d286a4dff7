"""A TF checkpoint prefix from a previous run is restored, but the files are gone.

label: checkpoint
family: missing_checkpoint
"""

import tensorflow as tf

ckpt = tf.train.Checkpoint(w=tf.Variable(tf.zeros([4])))
ckpt.read("runs/exp7/ckpt-12").assert_consumed()
