"""What the agent costs the training thread.

1. ``mon.step()`` and ``mon.record_step()``: µs per call on the training thread (target ≤ 2 µs),
   net of an empty ``with`` block, with the writer thread spooling as in real use.
2. The Keras callback, A/B on a real Keras CPU training run: the same model and data, fit with and
   without ``TPUWatchCallback`` in alternating repetitions; the median step time (epoch wall time /
   steps) of each arm and the difference in % (target < 1 %).

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
    from agent.monitor import Monitor

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


def bench_keras(reps: int, steps: int, spe: int) -> None:
    import numpy as np
    import tensorflow as tf

    from agent.keras import TPUWatchCallback
    from agent.monitor import Monitor

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

    class Timed(TPUWatchCallback):
        """The real callback, also adding up the time its hook takes on the training thread."""

        spent = 0.0
        calls = 0

        def on_train_batch_begin(self, batch, logs=None):
            t0 = time.perf_counter()
            super().on_train_batch_begin(batch, logs)
            Timed.spent += time.perf_counter() - t0
            Timed.calls += 1

    with tempfile.TemporaryDirectory() as tmp:
        mon = Monitor("bench-keras", spool_dir=tmp, send=False)

        def epoch(with_callback: bool) -> float:
            callbacks = [Timed(mon)] if with_callback else []
            t0 = time.perf_counter()
            model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False, callbacks=callbacks)
            return (time.perf_counter() - t0) / steps

        epoch(False)  # compile and warm caches before anything is measured
        epoch(True)
        off, on = [], []
        for rep in range(reps):
            # Alternate which arm goes first so that drift on a shared machine hits both alike.
            order = (False, True) if rep % 2 == 0 else (True, False)
            for arm in order:
                (on if arm else off).append(epoch(arm))
        mon.close()
    m_off, m_on = statistics.median(off), statistics.median(on)
    tag = f"spe{spe}"
    print(f"keras_{tag}_step_ms_without={m_off * 1e3:.4f}")
    print(f"keras_{tag}_step_ms_with={m_on * 1e3:.4f}")
    print(f"keras_{tag}_callback_overhead_pct={(m_on - m_off) / m_off * 100:.2f}")
    # The fastest repetition of each arm is the one least disturbed by other work on the machine.
    print(f"keras_{tag}_callback_overhead_pct_min={(min(on) - min(off)) / min(off) * 100:.2f}")
    print(f"keras_{tag}_step_ms_spread_without={(max(off) - min(off)) * 1e3:.3f}")
    # What the hook itself costs the training thread per step: noise-free, unlike the A/B.
    hook_per_step = Timed.spent / max(1, Timed.calls * spe)
    print(f"keras_{tag}_hook_us_per_step={hook_per_step * 1e6:.2f}")
    print(f"keras_{tag}_hook_pct_of_step={hook_per_step / m_off * 100:.3f}")
    print(f"keras_{tag}_reps={reps}")
    print(f"keras_{tag}_steps_per_rep={steps}")


def main() -> int:
    quick = "--quick" in sys.argv
    bench_step(200_000 if quick else 1_000_000)
    reps = 5 if quick else 15
    bench_keras(reps, steps=150, spe=1)
    bench_keras(reps, steps=160, spe=8)
    return 0


if __name__ == "__main__":
    sys.exit(main())
