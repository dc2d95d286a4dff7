"""Keras training script builds a TPUStrategy for a TPU worker address that no longer answers.

label: connection_loss
family: tpu_cluster_resolver_unreachable
"""

import os

os.environ["GRPC_FAIL_FAST"] = "true"  # report the unreachable TPU instead of retrying for minutes

import keras
import tensorflow as tf

TPU_ADDRESS = "grpc://127.0.0.1:1"  # the old TPU node's worker endpoint

resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=TPU_ADDRESS)
tf.config.experimental_connect_to_cluster(resolver)
strategy = tf.distribute.TPUStrategy(resolver)
with strategy.scope():
    model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(1)])
    model.compile("adam", "mse")
print("replicas:", strategy.num_replicas_in_sync)
