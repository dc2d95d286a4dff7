"""Variables from strategy A are updated inside strategy B.run().

label: strategy_scope
family: two_strategies
"""

import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

other = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    w = tf.Variable(tf.ones([4, 1]))


@tf.function
def step(x):
    def fn(x):
        w.assign_sub(0.1 * tf.reduce_mean(x) * tf.ones_like(w))
        return tf.reduce_sum(w)

    return other.run(fn, args=(x,))


print(step(tf.ones([4])))
