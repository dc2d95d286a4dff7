"""Checkpoint hooks with the real frameworks on the CPU: Orbax's and TensorFlow's checkpoint
managers, wrapped, record timed saves with their step and restores with the step resumed from."""

from __future__ import annotations

from tpuwatch.managers import watch_checkpoints
from tpuwatch.monitor import Monitor


def _events(mon, kind):  # the writer thread waits an hour: everything is still queued
    return [e for e in mon._events if e[1] == kind]


def test_orbax_manager_saves_and_restores_are_recorded(tmp_path):
    import jax.numpy as jnp
    import orbax.checkpoint as ocp

    mon = Monitor("orbax", spool_dir=tmp_path / "spool", send=False, flush_interval=3600)
    options = ocp.CheckpointManagerOptions(save_interval_steps=2, enable_async_checkpointing=False)
    mngr = watch_checkpoints(ocp.CheckpointManager(tmp_path / "ckpt", options=options), mon)
    state = {"w": jnp.ones((4,))}
    for step in range(1, 5):  # Orbax saves the first step, then every second one
        mngr.save(step, args=ocp.args.StandardSave(state))
    mngr.wait_until_finished()
    saves = [e[3] for e in _events(mon, "checkpoint")]
    assert [s["step"] for s in saves] == [1, 2, 4] and all(s["duration"] > 0 for s in saves)
    restored = mngr.restore(None, args=ocp.args.StandardRestore(state))
    assert float(restored["w"].sum()) == 4.0
    (restore,) = [e[3] for e in _events(mon, "restore")]
    assert restore["step"] == 4
    phases = [(e[3]["name"], e[3]["state"]) for e in _events(mon, "phase")]
    assert phases.count(("checkpoint", "begin")) == 3 and ("restore", "end") in phases
    with mon.step():
        pass
    assert mon._last_step == 5  # steps number on from the restored one
    mon.close()


def test_tf_checkpoint_manager_saves_and_restores_are_recorded(tmp_path):
    import tensorflow as tf

    mon = Monitor("tf", spool_dir=tmp_path / "spool", send=False, flush_interval=3600)
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(step=step, w=tf.Variable([1.0, 2.0]))
    mngr = watch_checkpoints(
        tf.train.CheckpointManager(ckpt, tmp_path / "tf", 3, step_counter=step, checkpoint_interval=1), mon
    )
    step.assign(30)
    assert mngr.save()
    (save,) = [e[3] for e in _events(mon, "checkpoint")]
    assert save["step"] == 30 and save["duration"] > 0
    step.assign(0)
    mngr.restore_or_initialize()
    (restore,) = [e[3] for e in _events(mon, "restore")]
    assert restore["step"] == 30
    mon.close()
