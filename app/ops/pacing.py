"""The interval each agent host is asked to keep between its batches, so that a slice of any size
fits the server instead of queueing on it.

Why: every host of a slice sends a batch about once a second. One process serves a few hundred
batches a second; a slice of 1,024 hosts would keep its ingest gate full, and the 503s that follow
make every host back off blindly, in a herd, to many seconds. The server knows what the hosts do
not: how many hosts are sending and what a batch costs it. So it tells them:

    interval = hosts seen sending lately x CPU seconds per batch / cpu_budget

times a pressure factor, at most ``cap``; agents never go below their own interval (1 s unless
set), so a small job is asked for nothing more. ``cpu_budget`` is the share of one core
that agents' batches may take (the rest is for pages, the API and the alert loop).

The cost per batch is measured, not configured: the CPU time of the threads that check and
store the batch (``spent``), plus what the event loop does around it (HTTP, middleware, reading
the body): the loop thread's CPU per ingest request, when the caller on the loop passes its
reading (``interval(loop_cpu=time.thread_time())``, app/ops/admission.py), else ``FRAMEWORK_S``.
A fixed 1 ms was once measured; cheaper middleware made it about 0.5 ms, and a fixed figure asked
hosts for a third more than needed. Only the batches' own CPU counts:
charging them the process's (the alert loop, pages) would make each batch look dearer as batches
grow fewer, and the interval would run away to its cap. Until enough batches came, a prior of 2 ms
(measured: 1.5 to 2 ms on a 2-core machine shared with other work) is assumed, so that a slice
starting all at once is spread from its first answers.

CPU is not all a batch needs: a machine whose cores are taken by others, or a slow database, keeps
batches waiting at the gate or in the writer's queue. So each estimate in which more than
``PRESSED_SHARE`` of the batches answered were refused by the gate or took longer than ``LATE_S``
to be stored (agents give up after 5 s and send it again) raises the pressure factor by half (up
to 4), and each calm one lowers it by a fifth. A share, not any one batch: on a machine shared
with other work a late batch or two comes every second, and when one was enough the factor sat at
4 and the 4,096 hosts of a job were asked for 30 s, their steps stored a minute late. And it rises
only once the batches have been pressed for an interval, and at most once per interval: a host
hears a new interval only with the answer to its next batch, one interval later. Raising it every
second before the hosts could follow took a 4,096-host job starting at once to the 30 s cap, and
the steps of its first minute were stored 30 s late; the backlog of a slice's first batches (late
however the hosts are paced) clears within an interval, and does not raise it at all.

The interval travels in the ``X-Tpuwatch-Pace`` response header of every ingest answer (and sets
``Retry-After`` on the gate's 429); agents take it as the least interval they keep (agent/sender.py, Pace).

>>> now = [0.0]
>>> p = Pacing(cpu_budget=0.5, clock=lambda: now[0])
>>> for host in range(300):
...     p.served(f"host-{host}")
...     p.spent(0.001)  # each batch took 1 ms of a worker thread's CPU (+ 1 ms around it)
>>> now[0] = 2.0
>>> p.interval()  # 300 hosts x 2 ms a batch / half a core
1.2
"""

from __future__ import annotations

import math
import threading
import time

from tpuwatch import wire

HEADER = "X-Tpuwatch-Pace"
MAX_PRESSURE = 4.0
PRIOR_COST_S = 0.002  # CPU per batch before any is measured (a 2-core VM serving a slice)
FRAMEWORK_S = 0.001  # the event loop's CPU around a small ingest request, until measured
# The loop's measured CPU per ingest request is kept within these: the loop serves a page now and
# then too, and a second of few batches (a quiet fleet) must not make each look dear.
FRAMEWORK_RANGE_S = (0.0001, 0.003)
MAX_TRACKED_HOSTS = 100_000  # bounds the memory a client inventing host names can take
# A batch answered this long after its body came is late: the writer falls behind (the agent's
# request times out at 5 s; on a 2-core machine shared with other work, 1,547 of 18,483 requests
# of 2,048 hosts did while the gate refused none of them).
LATE_S = 2.0
MIN_WINDOW_S = 10.0  # a host sending at least this often counts, whatever the interval asked
PRESSED_SHARE = 0.02  # refused or late, of the batches answered in an estimate's second
GROUP_WAIT_SHARE, GROUP_WAIT_MAX_S = 0.02, 0.25  # the writer's wait for a fuller group, of the pace
# Between estimates, hosts this many times as many as the last estimate counted (and at least
# GROWN_MIN more) re-size the interval at once: a slice's hosts all arrive within one second.
GROWN, GROWN_MIN = 1.25, 16


class Pacing:
    def __init__(
        self,
        cpu_budget: float = 0.5,
        floor: float = 0.0,
        cap: float = 30.0,
        window: float = 30.0,
        every: float = 1.0,
        clock=time.monotonic,
    ) -> None:
        self.cpu_budget, self.floor, self.cap, self.window, self.every = cpu_budget, floor, cap, window, every
        self._clock = clock
        self._lock = threading.Lock()
        self._hosts: dict[str, float] = {}
        self._stored, self._store_cpu = 0, 0.0  # batches and their CPU since the last estimate
        self._requests = 0  # ingest requests served since the last estimate
        self._loop_cpu: float | None = None  # the loop thread's CPU reading at the last estimate
        self.framework = FRAMEWORK_S  # the loop's CPU per ingest request, smoothed
        self._cost = 0.0  # CPU seconds per batch, smoothed; 0 until measured
        self._refused = 0  # batches the gate refused or stored late since the last estimate
        self._answered = 0  # batches answered (stored, late or not, or refused) since then
        self.pressure = 1.0
        self._pressed_at = -math.inf  # when the pressure last rose
        self._pressed_since: float | None = None  # the first estimate of a pressed run
        self._interval = floor
        self._at = clock()
        self._counted = 0  # hosts the interval was last sized for
        self._next_retry = -math.inf  # when the last host refused was told to come again

    def served(self, host: str) -> None:
        """Count one ingest request from ``host`` (the sender's id, or its address)."""
        now = self._clock()
        with self._lock:
            self._requests += 1
            if host in self._hosts or len(self._hosts) < MAX_TRACKED_HOSTS:
                self._hosts[host] = now

    def spent(self, cpu_seconds: float) -> None:
        """Count the worker-thread CPU one batch took to check and store (any thread may call)."""
        with self._lock:
            self._stored += 1
            self._store_cpu += cpu_seconds

    def refused(self) -> None:
        """Count one batch the ingest gate had to refuse (429)."""
        self._refused += 1
        self._answered += 1

    def took(self, seconds: float) -> None:
        """How long a batch took from its body to its answer: a late one presses like a refusal."""
        self._answered += 1
        if seconds > LATE_S:
            self._refused += 1

    @property
    def hosts(self) -> int:
        return len(self._hosts)

    @property
    def cost(self) -> float:
        return self._cost

    def interval(self, loop_cpu: float | None = None) -> float:
        """Seconds between a host's batches, re-estimated at most every ``every`` seconds.
        ``loop_cpu``: the event loop thread's CPU time (``time.thread_time()`` called on it)."""
        now = self._clock()
        if now - self._at < self.every:
            if len(self._hosts) >= max(self._counted * GROWN, self._counted + GROWN_MIN):
                self._resize()
            return self._interval
        with self._lock:
            if now - self._at < self.every:
                return self._interval
            if loop_cpu is not None:
                if self._loop_cpu is not None and self._requests >= 10:
                    lo, hi = FRAMEWORK_RANGE_S
                    each = min(hi, max(lo, (loop_cpu - self._loop_cpu) / self._requests))
                    self.framework = 0.5 * self.framework + 0.5 * each
                self._loop_cpu = loop_cpu
                self._requests = 0
            if self._stored >= 10:  # too few batches say little about their cost
                cost = self._store_cpu / self._stored + self.framework
                self._cost = cost if self._cost == 0.0 else 0.5 * self._cost + 0.5 * cost
                self._stored, self._store_cpu = 0, 0.0
            # A host counts while it sent within two intervals (the window at most): one that
            # moved to another server process (a new connection after a timeout) stops counting
            # here soon, instead of being counted by both for the whole window.
            stale = now - min(self.window, max(MIN_WINDOW_S, 2.0 * self._interval))
            if len(self._hosts) > 64:
                self._hosts = {h: t for h, t in self._hosts.items() if t >= stale}
            else:
                for h in [h for h, t in self._hosts.items() if t < stale]:
                    del self._hosts[h]
            if self._refused > PRESSED_SHARE * self._answered:
                if self._pressed_since is None:
                    self._pressed_since = now
                # Pressed for an interval (not a backlog clearing), and the hosts heard the last rise.
                if min(now - self._pressed_since, now - self._pressed_at) >= self._interval:
                    self.pressure = min(MAX_PRESSURE, self.pressure * 1.5)
                    self._pressed_at = now
            else:
                self._pressed_since = None
                self.pressure = max(1.0, self.pressure * 0.8)
            self._refused = self._answered = 0
            self._resize()
            self._at = now
            return self._interval

    def _resize(self) -> None:
        """The interval for the hosts counted now, at the cost and pressure of the last estimate.
        Between estimates it is called as new hosts arrive: sized once a second, the interval
        that the first of a starting slice's 4,096 hosts were answered with counted none of them
        (1 s: the floor), and they all came again a second later, while their first batches still
        queued (29.3 s was that run's p99 in its first half-minute)."""
        self._counted = len(self._hosts)
        wanted = self._counted * (self._cost or PRIOR_COST_S) / self.cpu_budget * self.pressure
        self._interval = round(min(self.cap, max(self.floor, wanted)), 2)

    def group_wait(self) -> float:
        """How long the ingest writer may wait for more batches to store with one (writer.py): a
        fiftieth of the interval asked (at most ``GROUP_WAIT_MAX_S``) while hosts are asked to
        slow down beyond an agent's own interval, nothing while they are not."""
        asked = self._interval
        return 0.0 if asked <= wire.SEND_INTERVAL_S else min(GROUP_WAIT_MAX_S, GROUP_WAIT_SHARE * asked)

    def retry_after(self) -> int:
        """Whole seconds for a 429's ``Retry-After``: a refused host waits an interval at least, and
        the hosts refused together are spread over the interval after that, at the rate the server
        stores batches (the budget over a batch's cost), each told a later second than the one
        before. One figure for all brought every refused host back in the same second, to be
        refused again.

        Tried and undone, on a 2-core machine shared with the load (bench_fleet): told to come
        from 1 s, the refused hosts of a busy fleet came again into a gate still full
        (14,000 to 29,000 refusals in 5 minutes against 4,000, p99 30 to 50 s against 23 s); and a
        spread without end, under refusals that last, told hosts a minute and more.

        >>> now = [0.0]
        >>> p = Pacing(cpu_budget=0.5, clock=lambda: now[0])  # 250 batches a second at 2 ms
        >>> for host in range(1000):
        ...     p.served(f"host-{host}")
        >>> p.interval()
        4.0
        >>> from collections import Counter  # 1,200 refused: seconds told, and to how many hosts
        >>> sorted(Counter(p.retry_after() for _ in range(1200)).items())  # 4 to 8 s, then again
        [(4, 2), (5, 448), (6, 250), (7, 250), (8, 250)]
        """
        interval = max(1.0, self.interval())
        now = self._clock()
        rate = self.cpu_budget / (self._cost or PRIOR_COST_S)
        with self._lock:
            at = max(now + interval, self._next_retry + 1.0 / rate)
            if at > now + 2.0 * interval:  # spread over one interval, then again
                at = now + interval
            self._next_retry = at
        return max(1, math.ceil(at - now))
