"""The hot path: what ``Monitor.step()`` and ``Monitor.input_wait()`` hand out.

Each is one object per monitor, reused, so entering allocates nothing: a clock read on the way in,
a clock read and a tuple appended to a deque on the way out (``mon._cap`` bounds the deque; a full
one drops and counts, never blocks).
"""

from __future__ import annotations

from time import perf_counter


class StepTimer:
    """Context manager handed out by ``Monitor.step()``; reused, so entering allocates nothing."""

    __slots__ = ("_mon", "n", "_t0")

    def __init__(self, mon) -> None:
        self._mon = mon
        self.n = None
        self._t0 = 0.0

    def __enter__(self):
        self._t0 = perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        t1 = perf_counter()
        mon = self._mon
        n = self.n
        if n is None:
            n = mon._last_step + 1
        mon._last_step = n
        wait = mon._wait
        mon._wait = 0.0
        q = mon._steps
        if len(q) < mon._cap:
            q.append((n, t1, t1 - self._t0, wait))
        else:
            mon.dropped += 1
        return False


class WaitTimer:
    __slots__ = ("_mon", "_t0")

    def __init__(self, mon) -> None:
        self._mon = mon
        self._t0 = 0.0

    def __enter__(self):
        self._t0 = perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._mon._wait += perf_counter() - self._t0
        return False
