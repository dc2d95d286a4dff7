"""Custom training loop: model created before entering strategy.scope(); optimizer and step inside.

label: strategy_scope
family: model_outside_scope
"""

import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
with strategy.scope():
    optimizer = tf.keras.optimizers.SGD(0.1)

ds = tf.data.Dataset.from_tensor_slices((tf.ones([64, 8]), tf.zeros([64, 1]))).batch(16)
dist_ds = strategy.experimental_distribute_dataset(ds)


@tf.function
def train_step(x, y):
    def step_fn(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        optimizer.apply_gradients(
            zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables)
        )
        return loss

    return strategy.reduce("MEAN", strategy.run(step_fn, args=(x, y)), axis=None)


for x, y in dist_ds:
    print(train_step(x, y))
