"""A tf.Variable (an accumulator) created inside the function passed to strategy.run.

label: compile_error
family: variables_created_in_step_function
"""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["CPU:0"])


@tf.function
def step(x):
    def replica_fn(x):
        acc = tf.Variable(tf.zeros_like(x))
        acc.assign_add(x)
        return acc.read_value()

    return strategy.run(replica_fn, args=(x,))


print(step(tf.ones(3)))
