"""Keras fit on a TFRecord dataset whose files live at az:// paths.

label: local_filesystem
family: tfrecord_remote_scheme
source: tensorflow/tensorflow
"""

import keras
import tensorflow as tf

ds = tf.data.TFRecordDataset(["az://account/container/train-0.tfrecord"])
ds = ds.map(lambda r: (tf.zeros((4,)), tf.zeros((1,)))).batch(2)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(ds, epochs=1)
