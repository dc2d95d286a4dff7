"""The in-process recorder: ``Monitor`` and ``init()``.

The training thread's whole cost is a clock read and a tuple appended to a deque. A writer thread
turns the deque into batches in the spool every ``flush_interval``; a sender thread (only when not
under the sidecar, which sends for its child) delivers the spool to the server.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from time import perf_counter

from tpuwatch import checkpoints, config, log, runmeta, wire
from tpuwatch.asks import Asks
from tpuwatch.batching import closes_now, encode, step_rows
from tpuwatch.fit import expand_logs, fit_event, fit_name
from tpuwatch.loglines import LineQueue
from tpuwatch.pressure import Reserve, leftover_lines, make_room, send_directly
from tpuwatch.progress import Progress
from tpuwatch.sender import Pace, Sender, SenderThread
from tpuwatch.spool import ROTATE_SECONDS, Spool, SpoolWriter
from tpuwatch.timers import StepTimer, WaitTimer
from tpuwatch.transport import HttpTransport

MAX_BATCH_EVENTS = 20_000


class Monitor(checkpoints.CheckpointCalls):
    """Records steps, input waits, events and metrics of one job on one host.

    Example::

        mon = Monitor(job="bert", server="http://tpuwatch:8000", token="tpw_...")
        with mon.step():
            train_step()
        mon.close()
    """

    def __init__(
        self,
        job: str | None = None,
        *,
        server: str | None = None,
        token: str | None = None,
        run_id: str | None = None,
        host_index: int | None = None,
        spool_dir: str | Path | None = None,
        flush_interval: float = 1.0,
        send_interval: float = wire.SEND_INTERVAL_S,
        max_queue: int = 1_000_000,
        send: bool | None = None,
        attrs: dict | None = None,
        group: str | None = None,
        peak_flops: float | None = None,
        total_steps: int | None = None,
        name: str | None = None,
    ) -> None:
        sidecar_dir = os.environ.get(config.ENV_SIDECAR)
        job = job or config.env_str(config.ENV_JOB) or Path(sys.argv[0] or "job").stem or "job"
        self.job = fit_name(job, 200)  # the server refuses longer names: the whole run would be lost
        self.run_id = fit_name(run_id or config.env_str(config.ENV_RUN_ID) or uuid.uuid4().hex, 128)
        self.host_index = host_index if host_index is not None else config.env_int(config.ENV_HOST_INDEX, 0)
        self.stream = uuid.uuid4().hex
        self.under_sidecar = bool(sidecar_dir) and spool_dir is None and send is None
        if self.under_sidecar:
            self.spool_dir = Path(sidecar_dir)
        else:
            base = Path(spool_dir) if spool_dir else config.default_spool_dir()
            self.spool_dir = base / f"{self.run_id}-h{self.host_index}"
        self.server = server or config.env_str(config.ENV_SERVER)
        self.token = token or config.env_str(config.ENV_TOKEN)
        self.attrs = runmeta.run_attrs(self.under_sidecar, attrs, name, peak_flops)
        # The training run this job is an attempt of; the server defaults to project + job name.
        self.group = group or config.env_str(config.ENV_GROUP)
        self.dropped = 0
        self.unspooled = 0  # of ``dropped``: events the disk could not take
        self._unsent_final: tuple[dict, int] | None = None  # a last batch no room could be made for
        self.flush_interval = flush_interval
        self.send_interval = max(flush_interval, send_interval)
        self._cap = max_queue
        self._steps: deque = deque()
        self._events: deque = deque(maxlen=10_000)
        self._metrics: deque = deque(maxlen=100_000)
        self._logs: deque = deque()  # (ts, {name: value}, step) from log(): expanded by the writer
        self.lines = LineQueue(self)  # the job's output, pushed by the sidecar (the live log)
        self._last_step = 0
        self._wait = 0.0
        self._seq = 0
        self._reported_dropped = 0
        self._step_timer = StepTimer(self)
        self._wait_timer = WaitTimer(self)
        # Wall clock of a perf_counter reading: the hot path only reads perf_counter.
        self._wall_offset = time.time() - perf_counter()
        self._closed = False
        self._spooled_since_beat = False
        # Set by init() outside the sidecar: close() then reports how the process ended.
        self.report_exit = False
        self.exit_code = 0
        self._stop = threading.Event()
        self._flush_lock = threading.Lock()
        try:
            self.spool_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a full disk must not reach training: what cannot be spooled is counted
            log.warn(f"cannot create the spool folder {self.spool_dir}: {exc.strerror or exc}")
        want_send = (not self.under_sidecar) if send is None else send
        # A pace (this process's sender's, or the sidecar's) closes segments, one request each;
        # recording for a later `agent sync`, they close by age.
        paced = (want_send and bool(self.server)) or self.under_sidecar
        self._writer = SpoolWriter(self.spool_dir, self.stream, None if paced else ROTATE_SECONDS)
        self._spool = Spool(self.spool_dir)
        self.progress: Progress | None = None  # set by init() under the sidecar
        self.hooks: list = []  # init()'s framework listeners (compiles.py, retracing.py): detached on close
        if want_send and self.server:
            # This process sends this folder: `agent sync` and other agents leave it alone. Taken
            # before meta.json exists, so that nobody sees the folder as an earlier run's leftovers.
            self._spool.lock()
        runmeta.write_meta(self.spool_dir, self.run_id, self.job, self.host_index, self.server, self.token)
        self._reserve = Reserve(self.spool_dir, self.stream)
        if total_steps:  # the steps this run means to make: a run that ends far short is flagged
            self.event(wire.Kind.MODEL_INFO, "", total_steps=int(total_steps))
        self._writer_thread = threading.Thread(target=self._write_loop, name="tpuwatch-writer", daemon=True)
        self._sender_thread: SenderThread | None = None
        self.asks = Asks()  # what the server asked of this host (the sidecar's sources act on it)
        if want_send:
            if self.server:
                transport = HttpTransport(
                    self.server, self.token, timeout=5.0, host=f"{config.hostname()}/{self.host_index}"
                )
                # One batch per send interval (jittered; longer while the server pushes back).
                sender = Sender(self._spool, transport, pace=Pace(base=self.send_interval), asks=self.asks)
                # The writer wakes the sender for each batch: the poll is only a fallback.
                self._sender_thread = SenderThread(sender, poll_interval=2.0)
                self._sender_thread.start()
            else:
                log.warn_once(
                    "no-server",
                    f"no server set (--server or TPUWATCH_SERVER); recording to "
                    f"{self.spool_dir} for a later `tpuwatch agent sync`",
                )
        self._writer_thread.start()  # after the sender: it paces itself by the sender

    # -- the hot path -------------------------------------------------------------------------

    def step(self, n: int | None = None) -> StepTimer:
        """Time one training step: ``with mon.step(): ...``. Steps number themselves unless given."""
        timer = self._step_timer
        timer.n = n
        return timer

    def input_wait(self) -> WaitTimer:
        """Time a wait for input: ``with mon.input_wait(): batch = next(it)``."""
        return self._wait_timer

    def wrap(self, iterator):
        """Yield from ``iterator``, timing each ``next()`` as input wait."""
        it = iter(iterator)
        timer = self._wait_timer
        while True:
            with timer:
                try:
                    item = next(it)
                except StopIteration:
                    return
            yield item

    def record_step(
        self,
        duration: float,
        step: int | None = None,
        input_wait: float | None = None,
        end: float | None = None,
    ) -> None:
        """Record a step measured elsewhere (framework callbacks). ``end`` is a perf_counter time."""
        n = self._last_step + 1 if step is None else step
        self._last_step = n
        wait = self._wait if input_wait is None else input_wait
        self._wait = 0.0
        if len(self._steps) < self._cap:
            self._steps.append((n, perf_counter() if end is None else end, duration, wait))
        else:
            self.dropped += 1

    def log(self, values: dict, step: int | None = None) -> None:
        """Record training metrics at a step: ``mon.log({"loss": 0.3, "lr": 1e-4}, step=n)``.

        Costs the training thread a tuple on a bounded queue (like ``step()``); the writer thread
        turns the values into numbers. ``step`` defaults to the last step recorded. A NaN or
        infinite loss is kept: the server flags the run as diverged."""
        if len(self._logs) < self._cap:
            self._logs.append((time.time(), values, self._last_step if step is None else step))
        else:
            self.dropped += 1

    # -- the rest -----------------------------------------------------------------------------

    def event(self, kind: str, message: str = "", **data) -> None:
        """Record an event (``error``, ``checkpoint``, ``epoch``, ...) with optional JSON data."""
        self._events.append((time.time(), kind, message, data or None))

    def event_at(self, ts: float, kind: str, message: str = "", **data) -> None:
        """Record an event that happened at wall-clock time ``ts`` (the process start, say)."""
        self._events.append((ts, kind, message, data or None))

    @contextmanager
    def phase(self, name: str):
        """Mark a long phase that makes no steps (a checkpoint save, an eval pass), so the server's
        stall alert allows it its own, longer time: ``with mon.phase("checkpoint"): save()``."""
        self.event(wire.Kind.PHASE, name, name=name, state="begin")
        try:
            yield self
        finally:
            self.event(wire.Kind.PHASE, name, name=name, state="end")

    def metric(
        self,
        name: str,
        value: float,
        chip: int | None = None,
        ts: float | None = None,
        step: int | None = None,
    ) -> None:
        """Record a sample of a named metric, e.g. ``tpuwatch.wire.MetricName.HBM_USED`` for chip 0,
        or a training metric at a ``step`` (see ``log()`` for several at once)."""
        if step is None:
            self._metrics.append((ts or time.time(), name, chip, float(value)))
        else:
            self._metrics.append((ts or time.time(), name, chip, float(value), step))

    def flush(self, final: bool = False) -> None:
        """Write what is queued to the spool now (the writer thread does this on its own).
        ``final``: the process's last word, for which room is made on a full disk."""
        with self._flush_lock:
            while True:
                batch, count = self._take_batch()
                if batch is None:
                    return
                self._spool_batch(batch, count, final)
                if self.progress is not None and batch["steps"]:
                    self.progress.update(batch["steps"])
                if count < MAX_BATCH_EVENTS:
                    return

    def heartbeat(self) -> None:
        """Tell the server this host is alive: nothing to do when a batch was written since the last
        heartbeat (it says so already), else an empty batch."""
        with self._flush_lock:
            if self._spooled_since_beat:
                self._spooled_since_beat = False
                return
            batch, count = self._take_batch(force=True)
            self._spool_batch(batch, count, final=False)
            self._spooled_since_beat = False  # the beat itself is no news of the next period
            if self._sender_thread is not None:
                self._writer.rotate()
        if self._sender_thread is not None:
            self._sender_thread.wake()

    def _spool_batch(self, batch: dict, count: int, final: bool) -> bool:
        """Append one batch; on a full disk count it as dropped (a final one first gets room made:
        the reserve, then the oldest closed segments, whose events are counted as dropped)."""
        while True:
            payload = encode(batch)
            try:
                self._writer.append(payload, count)
                self._spooled_since_beat = True
                return True
            except OSError as exc:
                freed = make_room(self._reserve, self._spool) if final else None
                if freed is not None:
                    self.dropped += freed
                    self._reported_dropped = batch["dropped"] = self.dropped
                    continue
                self.dropped += count
                self.unspooled += count
                self._reported_dropped = -1  # the next batch that fits carries the count
                if final:
                    self._unsent_final = (batch, count)
                log.warn_once(
                    "spool-full",
                    f"cannot write the spool in {self.spool_dir} ({exc.strerror or exc}): what cannot be "
                    "spooled is dropped and counted; training goes on",
                )
                return False

    def close(self, timeout: float = 5.0) -> None:
        """Flush and stop. Returns within about ``timeout`` seconds even when the server is down;
        what was not delivered stays in the spool for the sidecar or `tpuwatch agent sync`."""
        if self._closed:
            return
        self._closed = True
        for hook in self.hooks:
            hook.detach()
        if self.report_exit:
            self.event(wire.Kind.EXIT, "", code=self.exit_code, signal=None)
        try:
            self._stop.set()
            self._writer_thread.join(max(0.1, timeout / 4))
            self.flush(final=True)
            self._writer.close()
            self._reserve.drop()
            if self._sender_thread is not None:
                self._send_unspooled_final()
                self._sender_thread.drain(max(0.5, timeout * 3 / 4))
            self._spool.unlock()
            sender = self._spool if self._sender_thread is not None else None
            for line in leftover_lines(self.spool_dir, sender, self.server, self.unspooled):
                log.warn(line)
        except Exception as exc:
            log.warn(f"close: {type(exc).__name__}: {exc}")

    def _send_unspooled_final(self) -> None:
        """The disk could not take the last batch even with room made: try the server directly."""
        if self._unsent_final is not None:
            batch, count = self._unsent_final
            batch["dropped"] = self.dropped - count  # its own events arrive after all
            if send_directly(self.server, self.token, batch):
                self.dropped -= count
                self.unspooled -= count
                self._unsent_final = None

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------------

    def _take_batch(self, force: bool = False):
        steps_q, events_q, metrics_q = self._steps, self._events, self._metrics
        if self._logs:
            expand_logs(self._logs, metrics_q)
        lines_q = self.lines
        if not (
            steps_q or events_q or metrics_q or lines_q or force or self.dropped != self._reported_dropped
        ):
            return None, 0
        steps = step_rows(steps_q, MAX_BATCH_EVENTS, self._wall_offset)
        # Within the server's bounds here, in the writer thread: one oversized event must not cost
        # the steps that travel with it (the server refuses a batch whole).
        n_events = min(len(events_q), MAX_BATCH_EVENTS - len(steps))
        events = [fit_event(events_q.popleft()) for _ in range(n_events)]
        room = MAX_BATCH_EVENTS - len(steps) - len(events)
        metrics = []
        for _ in range(min(len(metrics_q), room)):
            ts, name, chip, value, *step = metrics_q.popleft()
            ok = type(name) is str and len(name) <= 100 and "\x00" not in name
            metrics.append((ts, name if ok else fit_name(name, 100), chip, value, *step))
        lines = lines_q.take(room - len(metrics))
        batch = wire.batch(
            stream=self.stream,
            seq=self._seq,
            run=wire.run_info(self.run_id, self.job, self.host_index, self.attrs, self.group),
            sent_at=time.time(),
            steps=steps,
            events=events,
            metrics=metrics,
            dropped=self.dropped,
            logs=lines,
        )
        self._reported_dropped = self.dropped
        self._seq += 1
        return batch, len(steps) + len(events) + len(metrics) + len(lines)

    def _write_loop(self) -> None:
        # Batches reach the spool every flush interval (a killed process loses no more than that);
        # the segment closes, and goes out as one request, once per send interval: the sender's
        # pace in-process, the sidecar's (through its pace file) in the sidecar's child. While the
        # sender is behind (an answer awaited) the segment stays open: a busy server then gets one
        # bigger request per host, not a queue of them (a slice starting together sent 3 or 4 each).
        sending = self._sender_thread
        pace = runmeta.PaceFile(self.spool_dir, default=self.send_interval)
        waits = sending.sender.pace.next_wait if sending else pace.next_wait if self.under_sidecar else None
        behind = (lambda: sending.sender.in_flight) if sending else pace.sender_behind
        due = time.monotonic() + waits() if waits else float("inf")  # when the segment closes
        while not self._stop.wait(min(self.flush_interval, max(0.05, due - time.monotonic()))):
            try:
                self.flush()
                with self._flush_lock:  # a job gone quiet (a hang) must not keep its last steps unsent
                    if waits is None:  # recording for a later `agent sync`
                        self._writer.rotate_if_due()
                    elif closes_now(time.monotonic(), due, behind):
                        self._writer.rotate()
                        due = time.monotonic() + waits()
                    else:
                        continue
                if sending is not None:
                    pace.publish(sending.sender.pace.interval)  # for a child under this sidecar
                    sending.wake()
            except Exception as exc:  # a full disk must not reach training
                log.warn_once("write", f"cannot write the spool: {type(exc).__name__}: {exc}")
