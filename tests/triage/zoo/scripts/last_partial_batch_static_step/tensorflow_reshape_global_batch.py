"""jit_compile=True step reshapes with the constant GLOBAL_BATCH; the dataset keeps its last partial batch.

label: dynamic_shape
family: last_partial_batch_static_step
why: the fix is drop_remainder=True on the dataset
"""

import tensorflow as tf

GLOBAL_BATCH = 64
w = tf.Variable(tf.random.normal([28 * 28, 10]))


@tf.function(jit_compile=True)
def eval_step(images):
    flat = tf.reshape(images, [GLOBAL_BATCH, 28 * 28])
    return tf.reduce_mean(tf.nn.softmax(flat @ w))


ds = tf.data.Dataset.from_tensor_slices(tf.zeros([200, 28, 28])).batch(GLOBAL_BATCH)
for images in ds:
    print(eval_step(images).numpy())
