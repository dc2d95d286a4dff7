"""jax.profiler trace written to an hdfs:// directory.

label: local_filesystem
family: summary_dir_unsupported_scheme
"""

import jax
import jax.numpy as jnp

jax.profiler.start_trace("hdfs://namenode:8020/user/ml/profiles/exp42")
x = jnp.ones((512, 512))
for _ in range(3):
    x = jnp.tanh(x @ x)
x.block_until_ready()
jax.profiler.stop_trace()
