"""Custom TF loop with global_batch = per_replica * 8 * 1024 (replica count applied twice).

label: oom
family: batch_size_extra_zeros
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # keep the host safe: fail fast

import tensorflow as tf

PER_REPLICA = 1024
NUM_REPLICAS = 8
global_batch = PER_REPLICA * NUM_REPLICAS * 1024  # multiplied by the replica count twice

model = tf.keras.Sequential(
    [tf.keras.layers.Conv2D(16, 3), tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(10)]
)
opt = tf.keras.optimizers.SGD(0.1)


@tf.function
def train_step():
    images = tf.random.uniform([global_batch, 128, 128, 3])
    labels = tf.random.uniform([global_batch], maxval=10, dtype=tf.int32)
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = tf.reduce_mean(
            tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)
        )
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


print(train_step())
