"""A gradient all-reduce is called in cross-replica context instead of inside strategy.run.

label: strategy_scope
family: collective_outside_replicas
"""

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
with strategy.scope():
    g = tf.constant([1.0, 2.0])
    tf.distribute.get_replica_context().all_reduce("sum", g)
