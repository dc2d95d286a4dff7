"""tf.saved_model.save exports to an s3:// directory.

label: local_filesystem
family: saved_model_remote_scheme
source: tensorflow/tfx
"""

import tensorflow as tf


class Scale(tf.Module):
    def __init__(self):
        self.w = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return self.w * x


tf.saved_model.save(Scale(), "s3://models/scale/1")
