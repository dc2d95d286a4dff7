"""Keras's own checkpoint callbacks, timed: ``ModelCheckpoint`` and ``BackupAndRestore`` saves become
``checkpoint`` phases and events, a ``BackupAndRestore`` restore (or a model whose optimizer has
already stepped when ``fit`` begins: weights loaded from a checkpoint) a ``restore`` event.

``TPUWatchCallback`` calls :func:`watch_fit_callbacks` from ``on_train_begin`` with the callbacks
``fit`` is running; the instances get a timing wrapper around their save method (once), so a user
changes nothing in how they build their callbacks.
"""

from __future__ import annotations

from time import perf_counter

SAVERS = ("ModelCheckpoint", "BackupAndRestore")


def _kind(callback) -> str | None:
    names = {k.__name__ for k in type(callback).__mro__}
    return next((n for n in SAVERS if n in names), None)


def watch_fit_callbacks(watch, callbacks) -> None:
    """Wrap the savers among ``callbacks`` (a Keras ``CallbackList`` or a list) for ``watch``."""
    found = list(getattr(callbacks, "callbacks", callbacks) or [])
    restorer_after_us = False
    seen_us = False
    for cb in found:
        if cb is watch:
            seen_us = True
            continue
        kind = _kind(cb)
        if kind is None:
            continue
        if not getattr(cb, "_tpuwatch_wrapped", False):
            _wrap_save(watch, cb, kind)
            if kind == "BackupAndRestore":
                _wrap_load(watch, cb)
            cb._tpuwatch_wrapped = True
        if kind == "BackupAndRestore" and seen_us:
            restorer_after_us = True
    if not watch._resume_seen and not restorer_after_us:
        watch._resume_seen = True
        if watch._step > 0:  # the optimizer has stepped before this fit: a checkpoint was loaded
            watch.monitor.restored(watch._step, source="keras")


def _wrap_save(watch, cb, kind: str) -> None:
    original = cb._save_model
    decided = {"save": True}
    if kind == "ModelCheckpoint" and hasattr(cb, "_should_save_model"):
        should = cb._should_save_model

        def should_save(*args, **kwargs):
            decided["save"] = bool(should(*args, **kwargs))
            return decided["save"]

        cb._should_save_model = should_save

    def save(*args, **kwargs):
        t0 = perf_counter()
        watch._settle(t0)  # the running execution ended where the save began
        decided["save"] = True
        path = getattr(cb, "filepath", None) or getattr(cb, "backup_dir", None)
        mon = watch.monitor
        mon.event("phase", "checkpoint", name="checkpoint", state="begin")
        try:
            result = original(*args, **kwargs)
        finally:
            mon.event("phase", "checkpoint", name="checkpoint", state="end")
        if decided["save"]:
            took = perf_counter() - t0
            mon.checkpoint(watch._step, path=str(path) if path else None, duration=took, source=kind)
        return result

    cb._save_model = save


def _wrap_load(watch, cb) -> None:
    original = cb._load_model

    def load(*args, **kwargs):
        t0 = perf_counter()
        mon = watch.monitor
        mon.event("phase", "restore", name="restore", state="begin")
        try:
            result = original(*args, **kwargs)
        finally:
            mon.event("phase", "restore", name="restore", state="end")
        watch._resume_seen = True
        step = _iterations(cb.model)
        if getattr(cb.model, "_initial_epoch", None) or step:
            if step:
                watch._step = step
            mon.restored(step, path=str(getattr(cb, "backup_dir", "")) or None, duration=perf_counter() - t0)
        return result

    cb._load_model = load


def _iterations(model) -> int:
    try:
        return int(model.optimizer.iterations.numpy())
    except Exception:
        return 0
