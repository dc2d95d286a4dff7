"""Checkpoint managers that tell the monitor what they did: Orbax's ``CheckpointManager`` and
``tf.train.CheckpointManager``, wrapped so every save that happens is timed as a ``checkpoint``
phase with its step, and every restore says which step training resumed from.

Nothing here imports Orbax or TensorFlow: the wrapper calls the manager you pass and forwards
every other attribute to it. Example::

    from tpuwatch.managers import watch_checkpoints

    mngr = watch_checkpoints(ocp.CheckpointManager(path, options=options), mon)
    step = mngr.latest_step()
    if step is not None:
        state = mngr.restore(step, args=ocp.args.StandardRestore(state))   # a restore event
    for step in range(step or 0, total):
        ...
        mngr.save(step, args=ocp.args.StandardSave(state))                  # timed when it saves

An asynchronous Orbax save blocks training only while it copies to host memory: that part is
the checkpoint badput, and the event says ``"async": true``.
"""

from __future__ import annotations

from tpuwatch.checkpoints import step_from_path


class _Watched:
    def __init__(self, manager, monitor) -> None:
        object.__setattr__(self, "_manager", manager)
        object.__setattr__(self, "_mon", monitor)

    def __getattr__(self, name):
        return getattr(self._manager, name)

    def __setattr__(self, name, value):
        setattr(self._manager, name, value)

    @property
    def wrapped(self):
        """The manager itself."""
        return self._manager


class WatchedOrbaxManager(_Watched):
    """An Orbax ``CheckpointManager`` whose saves and restores are recorded."""

    def save(self, step, *args, **kwargs):
        mgr = self._manager
        force = bool(kwargs.get("force"))
        if not force and hasattr(mgr, "should_save") and not mgr.should_save(step):
            return mgr.save(step, *args, **kwargs)  # not a save step: nothing to time
        options = getattr(mgr, "_options", None)
        asynchronous = bool(getattr(options, "enable_async_checkpointing", False))
        path = str(getattr(mgr, "directory", "")) or None
        timer = self._mon.saving(step, path=path, **{"async": asynchronous})
        with timer:
            saved = mgr.save(step, *args, **kwargs)
            timer.record_event = bool(saved)
        return saved

    def restore(self, step=None, *args, **kwargs):
        mgr = self._manager
        if step is None and hasattr(mgr, "latest_step"):
            step = mgr.latest_step()
        with self._mon.restoring(step, path=str(getattr(mgr, "directory", "")) or None):
            return mgr.restore(step, *args, **kwargs)


class WatchedTFManager(_Watched):
    """A ``tf.train.CheckpointManager`` whose saves and restores are recorded. The step is the
    manager's ``step_counter`` (or ``checkpoint_number``) when it has one, else the number its
    checkpoint path ends with."""

    def save(self, checkpoint_number=None, *args, **kwargs):
        mgr = self._manager
        with self._mon.saving(None, path=None) as timer:
            path = mgr.save(checkpoint_number, *args, **kwargs)
            timer.path = path
            timer.step = _tf_step(mgr, checkpoint_number, path) if path else None
            timer.record_event = bool(path)
        return path

    def restore_or_initialize(self):
        """Restore the latest checkpoint (a ``restore`` event with its step) or initialise."""
        mgr = self._manager
        latest = mgr.latest_checkpoint
        if not latest:
            return mgr.restore_or_initialize()
        with self._mon.restoring(path=latest) as timer:
            result = mgr.restore_or_initialize()
            timer.step = _tf_step(mgr, None, latest)  # the step counter as restored
        return result

    def restore_latest(self):
        """``checkpoint.restore(latest_checkpoint)``, recorded; returns the load status or None."""
        mgr = self._manager
        latest = mgr.latest_checkpoint
        if not latest:
            return None
        with self._mon.restoring(path=latest) as timer:
            status = mgr.checkpoint.restore(latest)
            timer.step = _tf_step(mgr, None, latest)
        return status


def _tf_step(mgr, number, path) -> int | None:
    counter = getattr(mgr, "_step_counter", None)
    if counter is not None:
        try:
            return int(counter.numpy() if hasattr(counter, "numpy") else counter)
        except Exception:
            pass
    if number is not None:
        try:
            return int(number.numpy() if hasattr(number, "numpy") else number)
        except Exception:
            pass
    return step_from_path(path)


def watch_checkpoints(manager, monitor):
    """Wrap an Orbax or TensorFlow checkpoint manager so ``monitor`` learns of its saves/restores."""
    if hasattr(manager, "restore_or_initialize") and hasattr(manager, "latest_checkpoint"):
        return WatchedTFManager(manager, monitor)
    if hasattr(manager, "latest_step") and hasattr(manager, "save"):
        return WatchedOrbaxManager(manager, monitor)
    raise TypeError(f"not a checkpoint manager tpuwatch knows: {type(manager).__name__}")


__all__ = ["WatchedOrbaxManager", "WatchedTFManager", "watch_checkpoints"]
