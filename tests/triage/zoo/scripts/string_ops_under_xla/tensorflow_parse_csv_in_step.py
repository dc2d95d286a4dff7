"""Raw CSV lines are split and parsed with tf.strings inside the jit_compile=True step.

label: unsupported_op
family: string_ops_under_xla
why: XLA first rejects the string argument, but the fix is moving the string op into the input pipeline
"""

import tensorflow as tf

w = tf.Variable(tf.zeros([3, 1]))


@tf.function(jit_compile=True)
def predict(lines):
    fields = tf.strings.split(lines, ",").to_tensor()
    feats = tf.strings.to_number(fields[:, :3])
    return feats @ w


print(predict(tf.constant(["1.0,2.0,3.0,1", "0.5,0.1,0.2,0"])))
