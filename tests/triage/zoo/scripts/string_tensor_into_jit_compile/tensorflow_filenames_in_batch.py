"""The batch dict still carries the 'filename' strings when it is passed to the jit_compile=True step.

label: unsupported_dtype
family: string_tensor_into_jit_compile
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
opt = tf.keras.optimizers.SGD(0.1)


@tf.function(jit_compile=True)
def train_step(batch):
    with tf.GradientTape() as tape:
        logits = model(batch["features"])
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(batch["label"], logits))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


ds = tf.data.Dataset.from_tensor_slices(
    {
        "features": tf.random.normal([16, 5]),
        "label": tf.zeros([16], tf.int32),
        "filename": tf.constant([f"img_{i}.png" for i in range(16)]),
    }
).batch(8)
for batch in ds:
    print(train_step(batch))
