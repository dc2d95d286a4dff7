"""next(iterator) is called inside the jit_compile=True train step (multi-step loop on device).

label: unsupported_op
family: iterator_inside_compiled_step
"""

import tensorflow as tf

ds = (
    tf.data.Dataset.from_tensor_slices((tf.random.normal([64, 4]), tf.random.normal([64, 1])))
    .batch(8)
    .repeat()
)
it = iter(ds)
w = tf.Variable(tf.zeros([4, 1]))


@tf.function(jit_compile=True)
def train_steps(iterator, n):
    for _ in tf.range(n):
        x, y = next(iterator)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((x @ w - y) ** 2)
        w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss


print(train_steps(it, tf.constant(10)))
