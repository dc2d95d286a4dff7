"""Dense one-hot targets over a 256k vocabulary for a whole 4096x2048 token batch.

label: oom
family: one_hot_huge_vocab
"""

import resource

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # keep the host safe: fail fast

import tensorflow as tf

VOCAB = 256_000
tokens = tf.random.uniform([4096, 2048], maxval=VOCAB, dtype=tf.int32)


@tf.function
def targets(t):
    return tf.one_hot(t, depth=VOCAB, dtype=tf.float32)  # 4096*2048*256000 floats


y = targets(tokens)
print(y.shape)
