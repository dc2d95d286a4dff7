"""tpuwatch agent: records what a training job does and streams it to a tpuwatch server.

The core is standard library only and never raises into, blocks or noticeably slows training::

    import agent
    mon = agent.init(job="resnet50-v5e")   # TPUWATCH_SERVER / TPUWATCH_TOKEN / TPUWATCH_JOB
    for batch_no in range(n):
        with mon.input_wait():
            batch = next(it)
        with mon.step():
            train_step(batch)
    mon.close()

Under `tpuwatch agent run`, ``init()`` hands its data to the sidecar through the shared spool
instead of opening its own connection.
"""

from agent.monitor import Monitor, init

__all__ = ["Monitor", "init"]
