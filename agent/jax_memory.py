"""Device memory from inside a JAX process, for when libtpu's metrics service is not reachable.

``jax.local_devices()[i].memory_stats()`` gives ``bytes_in_use``, ``peak_bytes_in_use`` and
``bytes_limit`` on TPU; on the CPU it returns None, which is said once and then left alone.
Call ``sample()`` from the training loop as often as you like: it reads at most every
``every`` seconds. Example::

    from agent.jax_memory import JaxMemorySampler

    memory = JaxMemorySampler(mon)
    for batch in mon.wrap(batches):
        with mon.step():
            state = train_step(state, batch)
        memory.sample()
"""

from __future__ import annotations

from time import perf_counter

from agent import log

# Names shared with the sidecar's libtpu source so that one chart shows either.
FIELDS = (
    ("bytes_in_use", "tpu.hbm.used_bytes"),
    ("bytes_limit", "tpu.hbm.total_bytes"),
    ("peak_bytes_in_use", "tpu.hbm.peak_bytes"),
)


class JaxMemorySampler:
    """Samples ``memory_stats()`` of this process's local devices into ``monitor`` metrics."""

    def __init__(self, monitor, every: float = 5.0, devices=None) -> None:
        self.monitor = monitor
        self.every = every
        self._devices = devices
        self._next = 0.0
        self.enabled = True

    def sample(self, force: bool = False) -> int:
        """Record one sample per device when due; returns how many values were recorded."""
        if not self.enabled:
            return 0
        now = perf_counter()
        if not force and now < self._next:
            return 0
        self._next = now + self.every
        try:
            if self._devices is None:
                import jax

                self._devices = jax.local_devices()
            recorded = 0
            for i, device in enumerate(self._devices):
                stats = device.memory_stats()
                if not stats:
                    continue
                for key, name in FIELDS:
                    if key in stats:
                        self.monitor.metric(name, stats[key], chip=i)
                        recorded += 1
        except Exception as exc:
            self.enabled = False
            log.warn_once("jax-memory", f"jax memory_stats: stopped ({type(exc).__name__}: {exc})")
            return 0
        if not recorded:
            self.enabled = False
            kind = getattr(self._devices[0], "platform", "?") if self._devices else "none"
            log.warn_once(
                "jax-memory",
                f"jax memory_stats: not available on {kind} devices; no in-process device memory series",
            )
        return recorded
