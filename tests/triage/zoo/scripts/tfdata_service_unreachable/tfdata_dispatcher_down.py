"""tf.data service dispatcher address points at a dispatcher that is not running.

label: connection_loss
family: tfdata_service_unreachable
why: tf.data retries the dispatcher forever; the script's faulthandler watchdog dumps the stacks and exits 1 after 25 s (the framework never raises)
"""

import faulthandler

import tensorflow as tf

DISPATCHER = "grpc://127.0.0.1:1"


# dump the stacks and exit 1 if we are still stuck after 25 s
faulthandler.dump_traceback_later(25, exit=True)
ds = tf.data.Dataset.range(1000).map(lambda x: tf.cast(x, tf.float32) * 2.0).batch(8)
ds = ds.apply(tf.data.experimental.service.distribute(processing_mode="parallel_epochs", service=DISPATCHER))
for batch in ds.take(3):
    print(batch)
