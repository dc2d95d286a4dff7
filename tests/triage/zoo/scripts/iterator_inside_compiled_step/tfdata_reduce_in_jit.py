"""Dataset.reduce used to compute normalisation stats inside a jit_compile=True function.

label: unsupported_op
family: iterator_inside_compiled_step
"""

import tensorflow as tf

ds = tf.data.Dataset.from_tensor_slices(tf.random.normal([256, 3])).batch(32)


@tf.function(jit_compile=True)
def feature_mean(dataset):
    total, count = dataset.reduce(
        (tf.zeros([3]), 0.0),
        lambda acc, x: (acc[0] + tf.reduce_sum(x, 0), acc[1] + tf.cast(tf.shape(x)[0], tf.float32)),
    )
    return total / count


print(feature_mean(ds))
