"""Demo training jobs. They use only the agent, exactly as a user's script would, and are run by
`tpuwatch demo` under `tpuwatch agent run`. ``python -m app.demo.workloads KIND``."""

from __future__ import annotations

import math
import random
import sys
import time

import agent


def _train(mon, steps: int, base: float, wait: float = 0.0, jitter: float = 0.1, first: float = 1.5):
    for i in range(steps):
        with mon.input_wait():
            time.sleep(wait * random.uniform(0.5, 1.5))
        with mon.step():
            t = first if i == 0 else base * (1 + jitter * math.sin(i / 40) + random.uniform(0, jitter))
            time.sleep(t)
        if i % 200 == 199:
            mon.event("checkpoint", f"saved checkpoint at step {i + 1}", step=i + 1)
            print(f"step {i + 1}: loss {2.0 * math.exp(-i / 500):.4f}", flush=True)


def healthy(forever: bool = True) -> None:
    mon = agent.init()
    print("training resnet50 on synthetic data", flush=True)
    while True:
        _train(mon, 400, 0.02)
        if not forever:
            break
    mon.close()


def finished() -> None:
    mon = agent.init()
    _train(mon, 600, 0.01)
    print("training complete", flush=True)
    mon.close()


def input_bound() -> None:
    mon = agent.init()
    _train(mon, 500, 0.01, wait=0.006)
    mon.close()


class ResourceExhaustedError(RuntimeError):
    """Stands in for TensorFlow's error of the same name (the demo does not need TensorFlow)."""


def failing() -> None:
    mon = agent.init()
    _train(mon, 300, 0.01)
    print("increasing batch size to 4096", flush=True)
    raise ResourceExhaustedError(
        "Attempting to reserve 18.25G at the bottom of memory. That was not possible. "
        "There are 15.48G free, 0B reserved, and 15.48G reservable. "
        "Ran out of memory in memory space hbm. Used 17.70G of 15.48G hbm. Exceeded hbm capacity by 2.22G."
    )


KINDS = {"healthy": healthy, "finished": finished, "input_bound": input_bound, "failing": failing}

if __name__ == "__main__":
    KINDS[sys.argv[1]]()
