"""A helper enters its own OneDeviceStrategy scope while the caller is already inside a MirroredStrategy scope.

label: strategy_scope
family: two_strategies
"""

import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

eval_strategy = tf.distribute.OneDeviceStrategy("/cpu:0")


def build_eval_head():
    with eval_strategy.scope():
        return tf.keras.layers.Dense(3)


with strategy.scope():
    backbone = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(16)])
    head = build_eval_head()
print(head)
