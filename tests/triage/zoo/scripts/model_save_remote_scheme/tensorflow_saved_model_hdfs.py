"""tf.saved_model.save to an hdfs:// export directory.

label: local_filesystem
family: model_save_remote_scheme
"""

import tensorflow as tf


class Scorer(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.ones([4, 1]))

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, x):
        return x @ self.w


tf.saved_model.save(Scorer(), "hdfs://namenode:8020/user/ml/export/scorer/1")
