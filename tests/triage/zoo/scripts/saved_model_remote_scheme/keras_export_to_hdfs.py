"""Keras model.export writes a SavedModel to hdfs://.

label: local_filesystem
family: saved_model_remote_scheme
source: tensorflow/tfx
"""

import keras

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.export("hdfs://namenode:8020/serving/model/1")
