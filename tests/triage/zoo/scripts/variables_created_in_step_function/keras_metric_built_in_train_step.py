"""A Keras metric constructed inside a custom train step that runs under strategy.run.

label: compile_error
family: variables_created_in_step_function
"""

import keras
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["CPU:0"])
with strategy.scope():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    opt = keras.optimizers.SGD()


@tf.function
def train_step(x, y):
    def step_fn(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        mae = keras.metrics.MeanAbsoluteError()
        mae.update_state(y, model(x))
        return mae.result()

    return strategy.run(step_fn, args=(x, y))


print(train_step(tf.ones((4, 3)), tf.ones((4, 1))))
