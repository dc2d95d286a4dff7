"""Custom loop runs NUM_STEPS steps with next(iterator) inside tf.function; the dataset has no repeat().

label: input_pipeline
family: exhausted_dataset_no_repeat
"""

import tensorflow as tf

NUM_STEPS = 100
ds = tf.data.Dataset.from_tensor_slices((tf.random.normal([256, 4]), tf.random.normal([256, 1]))).batch(32)
iterator = iter(ds)
w = tf.Variable(tf.zeros([4, 1]))


@tf.function
def train_step(it):
    x, y = next(it)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss


for step in range(NUM_STEPS):
    loss = train_step(iterator)
    if step % 4 == 0:
        print("step", step, float(loss))
