"""Eval step computes an sklearn-style metric through tf.numpy_function inside jit_compile=True.

label: unsupported_op
family: py_function_in_jit_compile
"""

import numpy as np
import tensorflow as tf


def roc_auc_np(y, s):
    order = np.argsort(s)
    ranks = np.empty_like(order)
    ranks[order] = np.arange(len(s))
    pos = y == 1
    return np.float32((ranks[pos].sum() - pos.sum() * (pos.sum() - 1) / 2) / (pos.sum() * (~pos).sum()))


@tf.function(jit_compile=True)
def eval_step(labels, scores):
    return tf.numpy_function(roc_auc_np, [labels, scores], tf.float32)


print(eval_step(tf.constant([0, 1, 1, 0]), tf.constant([0.1, 0.8, 0.6, 0.3])))
