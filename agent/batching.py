"""How a host's records become batches and its batches requests, with no I/O: the rows of a batch,
its bytes, and when the open spool segment closes (each closed segment goes out as one request).

``Monitor`` calls these from its writer thread; the benchmarks' host emulator (bench/emulator.py)
calls the same ones for thousands of emulated hosts, so that their traffic is the agent's.
"""

from __future__ import annotations

import json
from collections import deque

from tpuwatch import wire

MAX_S = wire.MAX_DURATION_S
HOLD_S = 30.0  # the longest a due segment stays open for a sender that is behind


def step_rows(queue: deque, limit: int, offset: float) -> list:
    """Up to ``limit`` queued steps ``(n, perf_counter end, duration, input wait)`` as a batch's
    rows: the end in wall-clock seconds (``offset`` added), durations capped to the wire's bound.

    >>> step_rows(deque([(1, 10.0, 0.5, 0.0), (2, 10.5, 0.5, 0.01)]), 1, 1.7e9)
    [(1, 1700000010.0, 0.5, 0.0)]
    """
    pop = queue.popleft
    rows = []
    for _ in range(min(len(queue), limit)):
        n, t, d, w = pop()
        rows.append((n, round(t + offset, 6), round(min(d, MAX_S), 7), round(min(w, MAX_S), 7)))
    return rows


def encode(batch: dict) -> bytes:
    """A batch as the spool keeps it and the server reads it: compact JSON."""
    return json.dumps(batch, separators=(",", ":"), default=str).encode()


def closes_now(now: float, due: float, behind) -> bool:
    """Whether the open spool segment closes now (and goes out as one request): once it is due,
    unless the sender still awaits an answer (``behind()``), and then at most ``HOLD_S`` past due.

    >>> closes_now(10.0, 9.0, lambda: False), closes_now(10.0, 9.0, lambda: True)
    (True, False)
    >>> closes_now(40.0, 9.0, lambda: True), closes_now(8.0, 9.0, lambda: False)
    (True, False)
    """
    return now >= due and (now > due + HOLD_S or not behind())
