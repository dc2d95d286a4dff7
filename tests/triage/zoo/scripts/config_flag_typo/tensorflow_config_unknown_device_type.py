"""tf.config.set_visible_devices asked for a 'TPU' device list on a host that reports none, with the list indexed blindly.

label: unknown
family: config_flag_typo
"""

import tensorflow as tf

tpus = tf.config.list_physical_devices("TPU")
tf.config.set_visible_devices(tpus[0], "TPU")
