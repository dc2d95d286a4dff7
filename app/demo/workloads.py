"""Demo training jobs. They use only the agent, exactly as a user's script would, and are run by
`tpuwatch demo` under `tpuwatch agent run`. ``python -m tpuwatch.server.demo.workloads KIND``."""

from __future__ import annotations

import math
import os
import random
import sys
import time

import tpuwatch
from tpuwatch.wire import Kind, MetricName

GIB = 2**30


class _Chips:
    """What libtpu's metrics service reports for one v5e host's four chips, made up for the demo
    and recorded through the public ``mon.metric`` API at most every ``every`` seconds."""

    def __init__(self, mon, chips: int = 4, total_gib: float = 16.0, every: float = 0.5) -> None:
        self.mon, self.chips, self.total, self.every = mon, chips, total_gib * GIB, every
        self._next = 0.0

    def sample(self, used_gib: float, duty_pct: float) -> None:
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + self.every
        for chip in range(self.chips):
            used = min(self.total, (used_gib + 0.04 * chip + random.uniform(0, 0.05)) * GIB)
            self.mon.metric(MetricName.HBM_USED, used, chip=chip)
            self.mon.metric(MetricName.HBM_TOTAL, self.total, chip=chip)
            self.mon.metric(
                MetricName.DUTY_CYCLE, max(0.0, min(100.0, duty_pct + random.uniform(-3, 3))), chip=chip
            )


def _train(
    mon,
    steps: int,
    base: float,
    wait: float = 0.0,
    jitter: float = 0.1,
    first: float = 1.5,
    hbm=lambda i: 9.0,
    duty: float = 90.0,
    start: int = 0,
):
    """``steps`` training steps from step ``start``: a loss that falls (and its eval twin every 100
    steps), a learning rate that warms up, HBM and duty cycle, a checkpoint every 200 steps."""
    chips = _Chips(mon)
    for i in range(start, start + steps):
        with mon.input_wait():
            time.sleep(wait * random.uniform(0.5, 1.5))
        with mon.step():
            t = first if i == start else base * (1 + jitter * math.sin(i / 40) + random.uniform(0, jitter))
            time.sleep(t)
        chips.sample(hbm(i), duty)
        loss = 0.3 + 2.0 * math.exp(-i / 600) + random.gauss(0, 0.04)
        values = {"train/loss": loss, "train/lr": 3e-4 * min(1.0, (i + 1) / 300)}
        if i % 100 == 99:
            values["eval/loss"] = 0.35 + 2.0 * math.exp(-i / 600) + random.gauss(0, 0.02)
        mon.log(values, step=i + 1)
        if i % 200 == 199:
            mon.event(Kind.CHECKPOINT, f"saved checkpoint at step {i + 1}", step=i + 1)
            print(f"step {i + 1}: loss {loss:.4f}", flush=True)


def _demo_alive() -> bool:
    """A demo job stops once `tpuwatch demo` is gone, however it ended (a real job of course
    outlives whatever started it; the sidecar does not stop it)."""
    pid = os.environ.get("TPUWATCH_DEMO_PID")
    if not pid:
        return True
    try:
        os.kill(int(pid), 0)  # signal 0: only asks whether the process exists
    except (ProcessLookupError, ValueError):
        return False
    except PermissionError:
        pass  # it exists, under another user
    return True


def _start(mon) -> None:
    mon.model_info(
        config={"model": mon.job.rsplit("-", 1)[0], "optimizer": "adamw", "lr": 3e-4}, global_batch_size=256
    )
    print(f"training {mon.job} on synthetic data", flush=True)  # the job's own name, whatever it is


def healthy(forever: bool = True) -> None:
    mon = tpuwatch.init()
    _start(mon)
    first, start = 1.5, 0  # XLA compiles once: later rounds start at full speed
    while _demo_alive():
        _train(mon, 400, 0.02, first=first, hbm=lambda i: 11.0 + 0.6 * (i % 100) / 100, start=start)
        first, start = 0.02, start + 400
        if not forever:
            break
    mon.close()


def finished() -> None:
    mon = tpuwatch.init()
    _start(mon)
    _train(mon, 1500, 0.02)  # about 40 s: long enough to watch it run, then succeed
    print("training complete", flush=True)
    mon.close()


def input_bound() -> None:
    mon = tpuwatch.init()
    _start(mon)
    _train(mon, 1200, 0.01, wait=0.008, hbm=lambda i: 6.5, duty=45.0)
    mon.close()


class ResourceExhaustedError(RuntimeError):
    """Stands in for TensorFlow's error of the same name (the demo does not need TensorFlow)."""


def failing() -> None:
    mon = tpuwatch.init()
    _start(mon)
    # Memory creeps up with each larger batch until the allocator gives up.
    _train(mon, 600, 0.015, hbm=lambda i: 9.0 + 6.2 * i / 600)
    print("increasing batch size to 4096", flush=True)
    raise ResourceExhaustedError(
        "Attempting to reserve 18.25G at the bottom of memory. That was not possible. "
        "There are 15.48G free, 0B reserved, and 15.48G reservable. "
        "Ran out of memory in memory space hbm. Used 17.70G of 15.48G hbm. Exceeded hbm capacity by 2.22G."
    )


KINDS = {"healthy": healthy, "finished": finished, "input_bound": input_bound, "failing": failing}

if __name__ == "__main__":
    KINDS[sys.argv[1]]()
