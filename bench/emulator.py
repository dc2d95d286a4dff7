"""Thousands of agent hosts in one process: the agent's traffic without a thread (or a machine) per
host, for benchmarks of the server at a fleet's scale (bench/bench_fleet.py).

A real ``Monitor`` runs a writer thread, a sender thread and an http.client connection; 4,096 of
them on one machine collapse it (load average 885 in the pod bench). Here each host is two
coroutines on one event loop, and every decision is the agent's own, called from its modules:

- the batch: ``batching.step_rows`` and ``wire.batch``, encoded by ``batching.encode``, one per
  flush interval (1 s), as the writer thread writes them to the spool;
- when a segment closes, i.e. when a request goes out: ``batching.closes_now`` against the
  sender's ``Pace`` (jittered; held while an answer is awaited);
- what one request carries: ``spool.runs`` of the closed segment's records, merged by
  ``sender.merge_batches``; a 413 splits it with ``sender.split_batch``;
- the request's headers and gzip: ``HttpTransport.prepare``; the reply: ``transport.reply_of``;
- what a reply means and how long to wait after a refusal: ``sender.Rules`` (429/503 Retry-After
  plus jittered backoff, 5xx backoff, the server's ``X-Tpuwatch-Pace``);
- under the sidecar (``heartbeat``), an empty batch when nothing was written for 10 s.

Only the spool's files and the HTTP client differ: segments are lists in memory (a benchmark
host is never killed mid-write), and requests go over asyncio streams parsed by httptools (the
parser uvicorn uses; bench/emulated_http.py), one kept-alive connection per host, reopened once
when the server closed it idle, with the agent's 5 s timeout.

    python -m bench.emulator PLAN.json   # prints one JSON line of results

The plan names the server, the run's length and its jobs (``JobPlan`` below); each job has hosts,
a step rate, a start, and optionally an end (``ending``: "succeeded" or "failed"), a stall or a
slowdown. The results: per job the steps each host made and when each event happened, the
agents' request counts (``Stats``), and step-to-storage quantiles (from each step's end to the
answer that said it was stored: answers come only after the commit).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from time import perf_counter

from bench.emulated_http import FAILURES, Transport
from tpuwatch import runmeta, wire
from tpuwatch.batching import closes_now, encode, merge_batches, split_batch, step_rows
from tpuwatch.fit import fit_event
from tpuwatch.sender import (
    MERGE_MAX_BYTES,
    MERGE_MAX_EVENTS,
    SPLIT,
    STORED,
    Pace,
    Retry,
    Rules,
)
from tpuwatch.spool import Record, runs
from tpuwatch.transport import TransportError

FLUSH_S = 1.0  # Monitor's flush_interval and send_interval (its defaults)
POLL_S = 2.0  # SenderThread's poll when nothing wakes it
HEARTBEAT_S = 10.0  # the sidecar's heartbeat
CLOSE_TIMEOUT_S = 30.0  # how long a closing host may drain (bench/pod_load.py's --close-timeout)
INPUT_WAIT_S = 0.001
ERROR_TEXT = (
    'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n'
    "    state = train_step(state, batch)\n"
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
    "allocate 2.50G of HBM."
)


class StartTimeline:
    """The run's first ``SECONDS`` seconds, second by second (by when a request went out): requests
    sent, their answers (stored, refused with 429/503, failed: timeouts and resets), the slowest
    answer, and the most common pace heard. Whether the start is one wave, several, or a queue."""

    SECONDS = 40

    def __init__(self) -> None:
        self.start = time.monotonic()  # run_plan sets it to the run's start
        self.rows = [
            dict(sent=0, stored=0, refused=0, failed=0, worst_s=0.0, paces={}) for _ in range(self.SECONDS)
        ]

    def add(self, sent_at: float, outcome: str, took: float, pace: float | None = None) -> None:
        second = int(sent_at - self.start)
        if 0 <= second < self.SECONDS:
            row = self.rows[second]
            row["sent"] += 1
            row[outcome] += 1
            row["worst_s"] = max(row["worst_s"], took)
            if pace is not None:
                row["paces"][pace] = row["paces"].get(pace, 0) + 1

    def table(self) -> list[list]:
        """[second, sent, stored, refused, failed, worst answer s, commonest pace heard]."""
        return [
            [
                i,
                r["sent"],
                r["stored"],
                r["refused"],
                r["failed"],
                round(r["worst_s"], 2),
                max(r["paces"], key=r["paces"].get) if r["paces"] else None,
            ]
            for i, r in enumerate(self.rows)
            if r["sent"]
        ]


TIMELINE = StartTimeline()


class Latency:
    """A histogram of seconds (10 ms wide, up to 10 minutes): millions of steps in a few KB. With
    ``window`` set, also one per ``window`` seconds of the steps' ends (``by_window``): whether the
    late steps came as the hosts started, or all along."""

    WIDTH = 0.01

    def __init__(self, window: float | None = None) -> None:
        self.counts = [0] * 60_001
        self.n = 0
        self.window, self.start = window, time.time()
        self.windows: dict[int, Latency] = {}

    def add(self, seconds: float, n: int = 1, at: float | None = None) -> None:
        self.counts[min(len(self.counts) - 1, max(0, int(seconds / self.WIDTH)))] += n
        self.n += n
        if self.window and at is not None:
            key = max(0, int((at - self.start) / self.window))
            if key not in self.windows:
                self.windows[key] = Latency()
            self.windows[key].add(seconds, n)

    def by_window(self, q: float) -> list[float]:
        """The ``q`` quantile of each window, in order (NaN for a window without steps)."""
        last = max(self.windows, default=-1)
        return [self.windows[k].quantile(q) if k in self.windows else float("nan") for k in range(last + 1)]

    def quantile(self, q: float) -> float:
        if not self.n:
            return float("nan")
        want, seen = q * self.n, 0
        for i, c in enumerate(self.counts):
            seen += c
            if seen >= want:
                return (i + 1) * self.WIDTH
        return len(self.counts) * self.WIDTH


@dataclass
class _Spooled(Record):
    """A spooled batch, and the wall-clock ends of its steps (for step-to-storage)."""

    ends: tuple = ()


class Host:
    """One emulated host: the writer thread's and the sender thread's loops as coroutines."""

    def __init__(self, job: JobRun, index: int, attrs: dict, latency: Latency) -> None:
        self.job, self.index, self.latency = job, index, latency
        self.stream = uuid.uuid4().hex
        self.seq = 0
        self.run = wire.run_info(job.run_id, job.name, index, dict(attrs, hostname=f"{job.name}-{index}"))
        self.steps: deque = deque()
        self.events: deque = deque()
        self.rules = Rules(Pace(base=FLUSH_S))
        self.transport = Transport(job.server, job.token, f"{job.name}-{index}/{index}")
        self.open: list[_Spooled] = []
        self.ready: deque[list[_Spooled]] = deque()
        self.in_flight = False
        self.wake = asyncio.Event()
        self.cut_backoff = asyncio.Event()
        self.loops: list[asyncio.Task] = []
        self.stop_at: float | None = None
        self.beat = False  # a batch was written since the last heartbeat
        self.wall_offset = time.time() - perf_counter()

    # -- the writer thread -----------------------------------------------------------------------

    def flush(self, force: bool = False) -> None:
        if not (self.steps or self.events or force):
            return
        steps = step_rows(self.steps, 20_000, self.wall_offset)
        events = [fit_event(self.events.popleft()) for _ in range(len(self.events))]
        batch = wire.batch(
            stream=self.stream,
            seq=self.seq,
            run=self.run,
            sent_at=time.time(),
            steps=steps,
            events=events,
            metrics=[],
            dropped=0,
        )
        self.seq += 1
        payload = encode(batch)
        self.open.append(_Spooled(0, 0, payload, len(steps) + len(events), tuple(r[1] for r in steps)))
        self.beat = True

    def rotate(self) -> None:
        if self.open:
            self.ready.append(self.open)
            self.open = []

    async def write_loop(self) -> None:
        waits = self.rules.pace.next_wait
        due = time.monotonic() + waits()
        while True:
            await asyncio.sleep(min(FLUSH_S, max(0.05, due - time.monotonic())))
            self.flush()
            if closes_now(time.monotonic(), due, lambda: self.in_flight):
                self.rotate()
                due = time.monotonic() + waits()
                self.wake.set()

    async def heartbeats(self) -> None:
        """The sidecar's: an empty batch, sent at once, when nothing was written for a period."""
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            if self.beat:
                self.beat = False
                continue
            self.flush(force=True)
            self.beat = False
            self.rotate()
            self.wake.set()

    def start(self, heartbeat: bool) -> asyncio.Task:
        """Start the host's loops; returns its sender, which ends once the host closed and drained."""
        loops = [self.write_loop()] + ([self.heartbeats()] if heartbeat else [])
        self.loops = [asyncio.create_task(c) for c in loops]
        return asyncio.create_task(self.send_loop())

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """``Monitor.close``: the last batch written, the segment closed, the spool drained."""
        for task in self.loops:
            task.cancel()
        self.flush()
        self.rotate()
        self.stop_at = time.monotonic() + timeout
        self.wake.set()
        self.cut_backoff.set()  # a backoff must not outlast the drain

    # -- the sender thread -----------------------------------------------------------------------

    async def send_loop(self) -> None:
        while True:
            drained = await self.deliver(self.stop_at)
            if self.stop_at is not None and (drained or time.monotonic() >= self.stop_at):
                return
            await _wait(self.wake, POLL_S)
            self.wake.clear()

    async def deliver(self, deadline: float | None) -> bool:
        """``Sender.deliver`` over the in-memory segments."""
        try:
            while self.ready:
                segment = self.ready[0]
                for run in list(runs(segment, MERGE_MAX_EVENTS, MERGE_MAX_BYTES)):
                    if deadline is not None and time.monotonic() > deadline:
                        return False
                    merged = merge_batches([r.payload for r in run])
                    events = sum(r.events for r in run)
                    if (merged is None or not await self._send(merged, events, run, len(run) > 1)) and len(
                        run
                    ) > 1:
                        for record in run:  # one by one: one bad batch costs only itself
                            await self._send(record.payload, record.events, [record])
                            del segment[0]
                        continue
                    del segment[: len(run)]
                self.ready.popleft()
        except Retry as retry:
            delay = self.rules.retry_wait(retry)
            if deadline is not None:
                delay = min(delay, max(0.0, deadline - time.monotonic()))
            await _wait(self.cut_backoff, delay)
            self.cut_backoff.clear()
            return False
        self.rules.round_done()
        return True

    async def _send(self, payload: bytes, events: int, run: list, merged: bool = False) -> bool:
        """``Sender._send_payload``: True when the server has it."""
        self.in_flight = True
        sent_at = time.monotonic()
        try:
            reply = await self.transport.send(payload, self.rules.sent)
        except TransportError as exc:
            TIMELINE.add(sent_at, "failed", time.monotonic() - sent_at)
            raise Retry(None, str(exc)) from exc
        finally:
            self.in_flight = False
        TIMELINE.add(sent_at, "stored" if reply.ok else "refused", time.monotonic() - sent_at, reply.pace)
        verdict = self.rules.heard(reply, events)
        if verdict == STORED:
            now = time.time()
            for record in run:
                for end in record.ends:
                    self.latency.add(now - end, at=end)
            return True
        if verdict == SPLIT:
            halves = split_batch(payload)
            if halves:
                self.rules.stats.split_batches += 1
                return any([await self._send(half, n, []) for half, n in halves])
        if not merged:
            self.rules.refused(reply)
        return False


async def _loop_lag(t0: float, lags: dict[int, float], every: float = 0.1) -> None:
    """The emulator's own event-loop lag, the most per 30 s: a step's time to storage, and a
    request's 5 s timeout, include it (real agents each have a machine of their own)."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(every)
        late = time.monotonic() - before - every
        key = int((before - t0) / 30.0)
        lags[key] = max(lags.get(key, 0.0), late)


async def _wait(event: asyncio.Event, seconds: float) -> None:
    """``threading.Event.wait(seconds)`` on the loop (no task made per wait)."""
    try:
        async with asyncio.timeout(seconds):
            await event.wait()
    except TimeoutError:
        pass


@dataclass
class JobPlan:
    name: str
    run_id: str
    token: str
    hosts: int
    rate: float  # steps per second
    start: float = 0.0  # seconds into the run
    end: float | None = None  # when its hosts exit (None: still running at the run's end)
    ending: str = "succeeded"  # or "failed": one host reports an error and exits with code 1
    stall_at: float | None = None  # steps stop (the hosts stay alive, heartbeating)
    slow_at: float | None = None  # steps take ``slow_factor`` times as long from here
    slow_factor: float = 3.0


@dataclass
class JobRun(JobPlan):
    server: str = ""
    steps: int = 0  # steps each host made
    made_until: float = 0.0  # wall clock of the last step
    happened: dict = field(default_factory=dict)  # "stall" / "slow" / "end": wall clock
    hosts_list: list[Host] = field(default_factory=list)


async def _run_job(job: JobRun, t0: float, seconds: float, heartbeat: bool, senders: list) -> None:
    await asyncio.sleep(max(0.0, t0 + job.start - time.monotonic()))
    senders.extend(host.start(heartbeat) for host in job.hosts_list)
    stop = t0 + (job.end if job.end is not None else seconds)
    period = 1.0 / job.rate
    at = t0 + job.start  # the plan's clock: 60 s at 2 steps/s is 120 steps, as bench/pod_load.py makes
    while True:
        slow = job.slow_at is not None and at - t0 >= job.slow_at
        step_s = period * (job.slow_factor if slow else 1.0)
        if slow and "slow" not in job.happened:
            job.happened["slow"] = time.time()  # the first slow step begins
        at += step_s
        if at > stop + 1e-6:
            break
        if job.stall_at is not None and at - t0 >= job.stall_at:
            job.happened["stall"] = job.made_until  # the last step: the stall is counted from it
            await asyncio.sleep(max(0.0, stop - time.monotonic()))
            break
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        job.steps += 1
        row = (job.steps, perf_counter(), step_s - INPUT_WAIT_S, INPUT_WAIT_S)
        for host in job.hosts_list:
            host.steps.append(row)
        job.made_until = time.time()
    if job.end is not None:
        now = time.time()
        job.happened["end"] = now
        failed = job.ending == "failed"
        for host in job.hosts_list:
            if failed and host.index == 0:
                host.events.append((now, wire.Kind.ERROR, ERROR_TEXT, {"exception": "XlaRuntimeError"}))
            host.events.append((now, wire.Kind.EXIT, "", {"code": 1 if failed else 0, "signal": None}))
    for host in job.hosts_list:
        host.close()


async def run_plan(plan: dict) -> dict:
    """Run every job of ``plan`` to its end (and the run's); returns the results."""
    attrs = runmeta.run_attrs(False, None, None, None)  # what a real agent sends, once for all
    latency = Latency(window=30.0)
    jobs = []
    for spec in plan["jobs"]:
        job = JobRun(**spec, server=plan["server"])
        job.hosts_list = [Host(job, i, attrs, latency) for i in range(job.hosts)]
        jobs.append(job)
    senders: list[asyncio.Task] = []
    t0 = time.monotonic()
    TIMELINE.start = t0
    cpu0 = time.process_time()
    heartbeat = plan.get("heartbeat", True)
    lags: dict[int, float] = {}
    watch = asyncio.create_task(_loop_lag(t0, lags))
    await asyncio.gather(*[_run_job(j, t0, plan["seconds"], heartbeat, senders) for j in jobs])
    stepped = time.monotonic() - t0
    await asyncio.gather(*senders)
    drained = time.monotonic() - t0 - stepped
    watch.cancel()
    totals: dict = {}
    left = 0
    for job in jobs:
        for host in job.hosts_list:
            for k, v in vars(host.rules.stats).items():
                if isinstance(v, int):
                    totals[k] = totals.get(k, 0) + v
            left += sum(len(s) for s in host.ready) + len(host.open)
            host.transport.conn.close()
    return {
        "hosts": sum(j.hosts for j in jobs),
        "jobs": [
            {
                "name": j.name,
                "run_id": j.run_id,
                "hosts": j.hosts,
                "steps_per_host": j.steps,
                "made_until": j.made_until,
                "happened": j.happened,
            }
            for j in jobs
        ],
        "stats": totals,
        "batches_left": left,
        "transport_failures": FAILURES,
        "latency_p50_s": latency.quantile(0.5),
        "latency_p99_s": latency.quantile(0.99),
        "latency_steps": latency.n,
        "latency_p99_by_30s": [round(x, 2) for x in latency.by_window(0.99)],
        "loop_lag_max_by_30s": [round(lags.get(k, 0.0), 2) for k in range(max(lags, default=-1) + 1)],
        "start_by_second": TIMELINE.table(),
        "stepped_s": stepped,
        "drained_s": drained,
        "cpu_s": time.process_time() - cpu0,
        "stepped_until": max((j.made_until for j in jobs), default=0.0),
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        plan = json.load(f)
    try:
        import uvloop  # noqa: PLC0415 - optional: the emulator's loop costs less CPU on it

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    result = runner(run_plan(plan))
    result["pid"] = os.getpid()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
