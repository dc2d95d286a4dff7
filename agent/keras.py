"""Keras hook: ``model.fit(..., callbacks=[TPUWatchCallback()])`` records every training step.

TensorFlow is imported here and nowhere else in the agent. Under ``steps_per_execution=N`` Keras
calls the batch hooks once per N steps with the first and last step of the execution, so one
measured interval is recorded as N steps of a share each. Example::

    from tpuwatch.keras import TPUWatchCallback

    model.compile(optimizer="adam", loss="mse", steps_per_execution=32)
    model.fit(ds, epochs=3, callbacks=[TPUWatchCallback()])
"""

from __future__ import annotations

import math
import sys
from time import perf_counter

import tensorflow as tf

from tpuwatch import log, mfu, wire

MEMORY_EVERY = 5.0  # seconds between in-process memory samples
LOGS_EVERY = 1.0  # seconds between per-batch loss/metric samples (epoch ends are always recorded)


class TPUWatchCallback(tf.keras.callbacks.Callback):
    """Records step times, epoch boundaries, loss and metrics, and what the model looks like.

    ``monitor`` defaults to ``tpuwatch.init()`` (which, under ``tpuwatch agent run``, writes to the
    sidecar's spool). ``batch_size`` is the global batch size when Keras cannot tell it.
    ``flops_per_step`` overrides the model FLOPs counted from its Dense and Conv layers (for MFU).
    Saves of ``ModelCheckpoint`` and ``BackupAndRestore`` in the same ``fit`` are timed as
    checkpoints, their restore (or a model whose optimizer has already stepped) as a restore, and
    validation inside ``fit`` as an ``eval`` phase.
    """

    # Keras may call on_train_batch_end on its own thread: that hook only samples the loss.
    async_safe = True

    def __init__(
        self,
        monitor=None,
        batch_size: int | None = None,
        memory_device: str = "TPU:0",
        flops_per_step: float | None = None,
    ) -> None:
        super().__init__()
        if monitor is None:
            import tpuwatch

            monitor = tpuwatch.init()
        self.monitor = monitor
        self.batch_size = batch_size
        self.memory_device = memory_device
        self._open: tuple[float, int] | None = None  # (start, first step) of the running execution
        self._step = 0
        self._spe = 1
        self._steps_per_epoch = None
        self._info_sent = False
        self._next_logs = 0.0
        self._next_memory = 0.0
        self._memory_ok = True
        self.flops_per_step = flops_per_step
        self._in_fit = False
        self._resume_seen = False
        self._nan_seen = False

    # -- fit lifecycle -------------------------------------------------------------------------

    def on_train_begin(self, logs=None):
        try:
            # Continue the step count of a resumed model instead of starting at 1 again.
            self._step = int(self.model.optimizer.iterations.numpy())
        except Exception:
            self._step = 0
        self._spe = _steps_per_execution(self.model)
        self._steps_per_epoch = (self.params or {}).get("steps")
        self._open = None
        self._in_fit = True
        try:
            from tpuwatch.keras_saves import watch_fit_callbacks

            watch_fit_callbacks(self, _fit_local("callbacks"))
        except Exception as exc:  # timing saves is a nicety; training goes on
            log.warn_once("keras-saves", f"keras: cannot time checkpoint saves: {type(exc).__name__}: {exc}")
        if not self._info_sent:
            self._info_sent = True
            try:
                self.monitor.event(wire.Kind.MODEL_INFO, "", **self._model_info())
            except Exception as exc:  # describing the model is a nicety; training goes on
                log.warn_once("keras-info", f"keras: cannot describe the model: {type(exc).__name__}: {exc}")

    def on_epoch_begin(self, epoch, logs=None):
        self.monitor.event(
            wire.Kind.EPOCH, f"epoch {epoch} begins", epoch=epoch, phase="begin", step=self._step
        )

    def on_epoch_end(self, epoch, logs=None):
        self._settle(perf_counter())
        clean = _numbers(logs)
        self.monitor.event(
            "epoch", f"epoch {epoch} ends", epoch=epoch, phase="end", step=self._step, logs=clean
        )
        for name, value in clean.items():
            self.monitor.metric(wire.MetricName.KERAS_PREFIX + name, value, step=self._step)

    def on_test_begin(self, logs=None):
        # Validation inside fit runs between the last training step and on_epoch_end: the
        # last execution of the epoch ended here, not there.
        self._settle(perf_counter())
        if self._in_fit:
            self.monitor.event(wire.Kind.PHASE, wire.Phase.EVAL, name=wire.Phase.EVAL, state="begin")

    def on_test_end(self, logs=None):
        if self._in_fit:
            self.monitor.event(wire.Kind.PHASE, wire.Phase.EVAL, name=wire.Phase.EVAL, state="end")

    def on_train_end(self, logs=None):
        self._settle(perf_counter())
        self._in_fit = False

    def on_train_batch_begin(self, batch, logs=None):
        # Steps are timed from one execution's start to the next one's: that needs no end hook on
        # the training thread, which would make Keras wait for each step's results (a device
        # sync) before dispatching the next. The gap between two starts is exactly the step
        # count of the execution in between, also when the last one of an epoch was cut short.
        t = perf_counter()
        if self._open is not None:
            t0, begin = self._open
            self._record(t0, t, batch - begin if batch > begin else self._spe)
        self._open = (t, batch)
        if self._memory_ok and t >= self._next_memory:
            self._next_memory = t + MEMORY_EVERY
            self._sample_memory()

    def on_train_batch_end(self, batch, logs=None):
        # Keras runs this on its callback thread (async_safe): the loss costs training nothing.
        t = perf_counter()
        if not logs:
            return
        values = _numbers(logs)
        # A NaN or infinite loss is recorded at once, whenever it comes: the run has diverged.
        bad = not all(math.isfinite(v) for v in values.values())
        if t >= self._next_logs or (bad and not self._nan_seen):
            self._next_logs = t + LOGS_EVERY
            self._nan_seen = self._nan_seen or bad
            opened = self._open
            step = self._step + (batch - opened[1] + 1 if opened and batch >= opened[1] else 0)
            for name, value in values.items():
                self.monitor.metric(wire.MetricName.KERAS_PREFIX + name, value, step=step)

    # -- internals -----------------------------------------------------------------------------

    def _record(self, t0: float, t1: float, n: int) -> None:
        if n <= 0:
            return
        share = (t1 - t0) / n
        record = self.monitor.record_step
        step = self._step
        for k in range(1, n + 1):
            record(share, step + k, 0.0, t0 + k * share)
        self._step = step + n

    def _settle(self, t1: float) -> None:
        """Record the execution still open with the number of steps the optimizer really ran."""
        if self._open is None:
            return
        t0, begin = self._open
        self._open = None
        n = self._spe
        steps = self._steps_per_epoch
        if steps:
            n = max(1, min(n, steps - begin))
        try:
            done = int(self.model.optimizer.iterations.numpy()) - self._step
            if 0 <= done < n:
                n = done
        except Exception:
            pass  # no optimizer counter: trust Keras's count
        self._record(t0, t1, n)

    def _sample_memory(self) -> None:
        try:
            info = tf.config.experimental.get_memory_info(self.memory_device)
        except Exception:
            # Off a TPU (or on a device without an allocator) there is nothing to read: stop asking.
            self._memory_ok = False
            return
        self.monitor.metric(wire.MetricName.HBM_USED, info.get("current", 0), chip=0)
        self.monitor.metric(wire.MetricName.HBM_PEAK, info.get("peak", 0), chip=0)

    def _model_info(self) -> dict:
        layers = []
        widths = []
        for layer in _all_layers(self.model):
            width = getattr(layer, "units", None) or getattr(layer, "filters", None)
            if isinstance(width, int):
                widths.append(width)
                layers.append({"name": layer.name, "type": type(layer).__name__, "width": width})
        try:
            replicas = int(tf.distribute.get_strategy().num_replicas_in_sync)
        except Exception:
            replicas = None
        strategy = getattr(self.model, "distribute_strategy", None)
        if strategy is not None:
            replicas = int(getattr(strategy, "num_replicas_in_sync", replicas) or 1)
        batch = self.batch_size or _fit_batch_size()
        flops = self.flops_per_step or mfu.keras_step_flops(_all_layers(self.model), batch)
        return {
            "framework": "keras",
            "flops_per_step": flops,
            "keras_version": getattr(tf.keras, "__version__", None),
            "tensorflow_version": tf.__version__,
            "global_batch_size": batch,
            "replicas": replicas,
            "steps_per_execution": self._spe,
            "steps_per_epoch": (self.params or {}).get("steps"),
            "epochs": (self.params or {}).get("epochs"),
            "layer_widths": widths,
            "layers": layers[:200],
            "parameters": _count_params(self.model),
        }


def _steps_per_execution(model) -> int:
    value = getattr(model, "steps_per_execution", None)
    if value is None:
        value = getattr(model, "_steps_per_execution", 1)
    try:
        return max(1, int(value.numpy() if hasattr(value, "numpy") else value))
    except Exception:
        return 1


def _all_layers(model):
    seen = set()
    stack = list(getattr(model, "layers", []))
    while stack:
        layer = stack.pop(0)
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        yield layer
        stack.extend(getattr(layer, "layers", []) or [])


def _count_params(model) -> int | None:
    try:
        return int(model.count_params())
    except Exception:
        return None


def _fit_local(name: str):
    """A local variable of the ``fit`` call running this callback (None when not found)."""
    frame = sys._getframe(1)
    for _ in range(12):
        if frame is None:
            return None
        if frame.f_code.co_name == "fit" and name in frame.f_locals:
            return frame.f_locals[name]
        frame = frame.f_back
    return None


def _fit_batch_size() -> int | None:
    """The batch size ``fit`` is iterating with, read from its data adapter when Keras knows it.

    Callbacks are not told the batch size, but ``fit`` holds its epoch iterator in a local
    variable while it calls ``on_train_begin``; this looks for it a few frames up, read-only."""
    frame = sys._getframe(1)
    for _ in range(12):
        if frame is None:
            return None
        it = frame.f_locals.get("epoch_iterator") if frame.f_code.co_name == "fit" else None
        if it is not None:
            adapter = getattr(it, "data_adapter", None) or getattr(it, "_data_adapter", None)
            try:
                size = adapter.batch_size if adapter is not None else None
            except Exception:
                size = None
            if size is None:
                size = frame.f_locals.get("batch_size")
            return int(size) if isinstance(size, int) else None
        frame = frame.f_back
    return None


def _numbers(logs) -> dict:
    out = {}
    for name, value in (logs or {}).items():
        try:
            out[str(name)] = float(value)
        except (TypeError, ValueError):
            continue
    return out
