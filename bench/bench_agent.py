"""What the agent costs the training thread.

1. ``mon.step()`` and ``mon.record_step()``: µs per call on the training thread (target ≤ 2 µs),
   net of an empty ``with`` block, with the writer thread spooling as in real use.
2. The Keras callback, A/B on a real Keras CPU training run (target < 1 %): one long fit of the same
   model whose steps alternate, block by block, between running ``TPUWatchCallback``'s hooks and
   not. Whole fits with and without the callback differ by more than 10 % from run to run on a
   shared 2-core VM; adjacent blocks of one fit see the same machine, so the median of the paired
   block differences (with a bootstrap 95 % interval) resolves a fraction of a percent. Also the
   time spent inside the hook on the training thread, per step.

Prints ``name=value`` lines. ``--quick`` runs fewer repetitions.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


class _Null:
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def bench_step(n: int) -> None:
    from tpuwatch.monitor import Monitor

    with tempfile.TemporaryDirectory() as tmp:
        mon = Monitor("bench", spool_dir=tmp, send=False, max_queue=n + 10)
        null = _Null()
        rounds = []
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(n):
                with null:
                    pass
            t1 = time.perf_counter()
            for _ in range(n):
                with mon.step():
                    pass
            t2 = time.perf_counter()
            mon.flush()  # empty the queue outside the timed loops, so that none is dropped
            t3 = time.perf_counter()
            for _ in range(n):
                mon.record_step(0.001)
            t4 = time.perf_counter()
            mon.flush()
            rounds.append(((t1 - t0) / n, (t2 - t1) / n, (t4 - t3) / n))
        base = min(r[0] for r in rounds)
        step = min(r[1] for r in rounds)
        record = min(r[2] for r in rounds)
        mon.close()
        print(f"agent_step_us={(step - base) * 1e6:.3f}")
        print(f"agent_step_gross_us={step * 1e6:.3f}")
        print(f"agent_record_step_us={record * 1e6:.3f}")
        print(f"agent_step_dropped={mon.dropped}")


def bench_keras(steps: int, spe: int, block: int) -> None:
    import numpy as np
    import tensorflow as tf

    from tpuwatch.keras import TPUWatchCallback
    from tpuwatch.monitor import Monitor

    tf.keras.utils.set_random_seed(0)
    batch = 64
    x = np.random.default_rng(0).random((steps * batch, 128), dtype=np.float32)
    y = np.random.default_rng(1).random((steps * batch, 1), dtype=np.float32)
    model = tf.keras.Sequential(
        [
            tf.keras.Input((128,)),
            tf.keras.layers.Dense(512, activation="relu"),
            tf.keras.layers.Dense(512, activation="relu"),
            tf.keras.layers.Dense(1),
        ]
    )
    model.compile(optimizer="adam", loss="mse", steps_per_execution=spe)

    class Switch(tf.keras.callbacks.Callback):
        """Runs the real callback's hooks in every other block of ``block`` steps and times each
        block from its first execution's start to the next block's. Both arms share this harness,
        so the only difference between them is TPUWatchCallback's own work."""

        async_safe = True

        def __init__(self, inner: TPUWatchCallback) -> None:
            super().__init__()
            self.inner = inner
            self.blocks: list[tuple[bool, float, int]] = []  # (callback on, seconds, steps)
            self.spent = 0.0  # time inside the real callback's training-thread hook
            self._mark: tuple[float, int] | None = None
            self.on = False

        def set_model(self, model):
            super().set_model(model)
            self.inner.set_model(model)

        def set_params(self, params):
            super().set_params(params)
            self.inner.set_params(params)

        def on_train_begin(self, logs=None):
            self.inner.on_train_begin(logs)

        def on_epoch_begin(self, epoch, logs=None):
            self.inner.on_epoch_begin(epoch, logs)

        def on_epoch_end(self, epoch, logs=None):
            self.inner.on_epoch_end(epoch, logs)

        def on_train_end(self, logs=None):
            self.inner.on_train_end(logs)

        def on_train_batch_begin(self, batch, logs=None):
            t = time.perf_counter()
            if batch % block == 0:  # Keras numbers batches in steps, also under steps_per_execution
                if self._mark is not None:
                    t0, s0 = self._mark
                    self.blocks.append((self.on, t - t0, batch - s0))
                self.on = (batch // block) % 2 == 1
                self.inner._open = None  # the off block's steps are not the callback's to record
                self._mark = (t, batch)
            if self.on:
                self.inner.on_train_batch_begin(batch, logs)
                self.spent += time.perf_counter() - t

        def on_train_batch_end(self, batch, logs=None):
            if self.on:
                self.inner.on_train_batch_end(batch, logs)

    with tempfile.TemporaryDirectory() as tmp:
        mon = Monitor("bench-keras", spool_dir=tmp, send=False)
        model.fit(x[: 20 * batch * spe], y[: 20 * batch * spe], batch_size=batch, verbose=0)  # compile
        switch = Switch(TPUWatchCallback(mon))
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False, callbacks=[switch])
        mon.close()
    blocks = [(on, sec / n) for on, sec, n in switch.blocks[1:]]  # the first block still warms up
    off = [t for on, t in blocks if not on]
    on = [t for on, t in blocks if on]
    # Each block with the callback against the mean of the blocks without it on either side:
    # a slow drift of the machine cancels instead of favouring one arm.
    pairs = [
        t / ((blocks[i - 1][1] + blocks[i + 1][1]) / 2) - 1
        for i, (is_on, t) in enumerate(blocks[1:-1], start=1)
        if is_on
    ]
    rng = np.random.default_rng(0)
    boot = np.median(rng.choice(np.array(pairs), size=(2000, len(pairs))), axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5]) * 100
    tag = f"spe{spe}"
    print(f"keras_{tag}_step_ms_without={statistics.median(off) * 1e3:.4f}")
    print(f"keras_{tag}_step_ms_with={statistics.median(on) * 1e3:.4f}")
    print(f"keras_{tag}_callback_overhead_pct={statistics.median(pairs) * 100:.2f}")
    print(f"keras_{tag}_callback_overhead_pct_ci95={lo:.2f}..{hi:.2f}")
    print(f"keras_{tag}_block_pairs={len(pairs)}")
    # What the hook itself costs the training thread per step: noise-free, unlike the A/B.
    hook_per_step = switch.spent / max(1, sum(n for o, _, n in switch.blocks if o))
    print(f"keras_{tag}_hook_us_per_step={hook_per_step * 1e6:.2f}")
    print(f"keras_{tag}_hook_pct_of_step={hook_per_step / statistics.median(off) * 100:.3f}")


def main() -> int:
    quick = "--quick" in sys.argv
    bench_step(200_000 if quick else 1_000_000)
    steps = 3_000 if quick else 12_000
    bench_keras(steps, spe=1, block=40)
    bench_keras(steps, spe=8, block=80)
    return 0


if __name__ == "__main__":
    sys.exit(main())
