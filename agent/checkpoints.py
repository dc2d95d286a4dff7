"""Checkpoint saves and restores as the server's goodput counts them.

A save that blocks training is checkpoint badput: it is timed as a ``checkpoint`` phase and
recorded as a ``checkpoint`` event with the step it holds. A restore is a ``restore`` phase and a
``restore`` event saying which step training resumed from; the server uses it to tell how much
work the attempt before was lost. ``Monitor.saving`` / ``Monitor.restoring`` hand out these
context managers; ``Monitor.checkpoint`` / ``Monitor.restored`` record what was timed elsewhere.
Example::

    with mon.saving(step, path=ckpt_dir):
        save(state)
    with mon.restoring(path=ckpt_dir) as r:
        state, r.step = restore()
"""

from __future__ import annotations

import time

from tpuwatch import wire


def record(mon, kind: str, step: int | None, path: str | None, duration: float | None, extra: dict) -> None:
    """One ``checkpoint`` or ``restore`` event; ``duration`` is how long it held training up."""
    data = {k: v for k, v in extra.items() if v is not None}
    if step is not None:
        data["step"] = int(step)
    if path is not None:
        data["path"] = str(path)[:1000]
    if duration is not None:
        data["duration"] = round(float(duration), 6)
    verb = "saved" if kind == wire.Kind.CHECKPOINT else "restored"
    mon.event(kind, f"checkpoint {verb}" + (f" at step {step}" if step is not None else ""), **data)


class Timed:
    """``with`` block timed as a phase; on success records the event. Set ``step`` inside the
    block when it is only known there (a restore finds its step in the checkpoint)."""

    def __init__(self, mon, kind: str, step: int | None = None, path: str | None = None, **extra) -> None:
        self.mon = mon
        self.kind = kind
        self.step = step
        self.path = path
        self.extra = extra
        self.phase = wire.Phase.CHECKPOINT if kind == wire.Kind.CHECKPOINT else wire.Phase.RESTORE
        self.record_event = True  # a manager that decided not to save clears it
        self._t0 = 0.0

    def __enter__(self) -> Timed:
        self._t0 = time.perf_counter()
        self.mon.event(wire.Kind.PHASE, self.phase, name=self.phase, state="begin")
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        took = time.perf_counter() - self._t0
        self.mon.event(wire.Kind.PHASE, self.phase, name=self.phase, state="end")
        if exc_type is None and self.record_event:
            if self.kind == wire.Kind.RESTORE and self.step is not None:
                self.mon.resume_at(self.step)
            record(self.mon, self.kind, self.step, self.path, took, self.extra)
        return False


def step_from_path(path) -> int | None:
    """The number at the end of a checkpoint path (``ckpt-12``, ``.../step_000120``), or None.

    >>> step_from_path("/tmp/run/ckpt-12"), step_from_path("gs://b/x/checkpoint_000300"), step_from_path("x")
    (12, 300, None)
    """
    if not path:
        return None
    tail = str(path).rstrip("/").rsplit("/", 1)[-1]
    digits = ""
    for ch in reversed(tail):
        if not ch.isdigit():
            break
        digits = ch + digits
    return int(digits) if digits else None


class CheckpointCalls:
    """The Monitor's checkpoint, restore and model calls (a mixin: ``self`` is the Monitor)."""

    def saving(self, step: int, path: str | None = None, **data) -> Timed:
        """Time a checkpoint save that blocks training: ``with mon.saving(step): save(state)``."""
        return Timed(self, wire.Kind.CHECKPOINT, step, path, **data)

    def restoring(self, step: int | None = None, path: str | None = None) -> Timed:
        """Time a restore; set ``.step`` inside the block if only the checkpoint knows it."""
        return Timed(self, wire.Kind.RESTORE, step, path)

    def checkpoint(self, step: int, path: str | None = None, duration: float | None = None, **data) -> None:
        """Record a save of ``step`` timed elsewhere (``duration``: seconds it blocked training)."""
        record(self, wire.Kind.CHECKPOINT, step, path, duration, data)

    def restored(self, step: int, path: str | None = None, duration: float | None = None, **data) -> None:
        """Record that training resumed from the checkpoint of ``step``; steps number on from it."""
        self.resume_at(step)
        record(self, wire.Kind.RESTORE, step, path, duration, data)

    def resume_at(self, step: int) -> None:
        """Number the next ``mon.step()`` ``step + 1`` (a resumed run continues its count)."""
        self._last_step = int(step)

    def model_info(self, flops_per_step: float | None = None, **info) -> None:
        """Describe the model once: ``flops_per_step`` (model FLOPs of one training step of the whole
        job, e.g. ``tpuwatch.jax.step_flops(train_step, state, batch)``) gives the job its MFU."""
        if flops_per_step is not None:
            info["flops_per_step"] = float(flops_per_step)
        if wire.Attr.PEAK_FLOPS in self.attrs:
            info.setdefault(wire.Attr.PEAK_FLOPS, self.attrs[wire.Attr.PEAK_FLOPS])
        self.event(wire.Kind.MODEL_INFO, "", **info)
