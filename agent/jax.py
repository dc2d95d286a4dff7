"""Device memory from inside a JAX process, for when libtpu's metrics service is not reachable.

``jax.local_devices()[i].memory_stats()`` gives ``bytes_in_use``, ``peak_bytes_in_use`` and
``bytes_limit`` on TPU; on the CPU it returns None, which is said once and then left alone.
Call ``sample()`` from the training loop as often as you like: it reads at most every
``every`` seconds. Example::

    from tpuwatch.jax import JaxMemorySampler

    memory = JaxMemorySampler(mon)
    for batch in mon.wrap(batches):
        with mon.step():
            state = train_step(state, batch)
        memory.sample()
"""

from __future__ import annotations

from time import perf_counter

from tpuwatch import log, wire

# Names shared with the sidecar's libtpu source so that one chart shows either.
FIELDS = (
    ("bytes_in_use", wire.MetricName.HBM_USED),
    ("bytes_limit", wire.MetricName.HBM_TOTAL),
    ("peak_bytes_in_use", wire.MetricName.HBM_PEAK),
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


def step_flops(jitted, *args, **kwargs) -> float | None:
    """Model FLOPs of one call of a jitted training step, from XLA's cost analysis of the compiled
    step (``jitted.lower(*args).compile().cost_analysis()``); None when XLA does not say.

    The compiled module of a sharded step is one device's share, so the count is multiplied by
    the devices the step runs on: the FLOPs of the whole job's step. Lowering compiles again
    (or hits the compilation cache): call it once, after the first step. Example::

        mon.model_info(flops_per_step=step_flops(train_step, state, batch))
    """
    try:
        compiled = jitted.lower(*args, **kwargs).compile()
        cost = compiled.cost_analysis()
    except Exception as exc:
        log.warn_once("jax-flops", f"jax cost_analysis: unavailable ({type(exc).__name__}: {exc})")
        return None
    if isinstance(cost, (list, tuple)):  # older JAX: one dict per module
        cost = cost[0] if cost else None
    flops = (cost or {}).get("flops")
    if flops is None or flops <= 0:
        return None
    return float(flops) * _partitions(compiled)


def _partitions(compiled) -> int:
    try:
        sharding = compiled.input_shardings[0]
        leaves = [s for s in _leaves(sharding) if hasattr(s, "device_set")]
        return max((len(s.device_set) for s in leaves), default=1)
    except Exception:
        return 1


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        for item in tree:
            yield from _leaves(item)
    elif isinstance(tree, dict):
        for item in tree.values():
            yield from _leaves(item)
    else:
        yield tree
