"""tpuwatch: records what a training job does and streams it to a tpuwatch server.

The core is standard library only and never raises into, blocks or noticeably slows training::

    import tpuwatch
    mon = tpuwatch.init(job="resnet50-v5e")   # TPUWATCH_SERVER / TPUWATCH_TOKEN / TPUWATCH_JOB
    for batch_no in range(n):
        with mon.input_wait():
            batch = next(it)
        with mon.step():
            train_step(batch)
    mon.close()

Under `tpuwatch agent run`, ``init()`` hands its data to the sidecar through the shared spool
instead of opening its own connection. ``tpuwatch.keras`` holds the Keras callback,
``tpuwatch.jax`` the JAX memory sampler; the server is ``tpuwatch.server`` (``pip install
'tpuwatch[server]'``), which ``import tpuwatch`` never loads.
"""

from tpuwatch.lifecycle import init
from tpuwatch.monitor import Monitor

__version__ = "0.1.0"
__all__ = ["Monitor", "__version__", "init"]
