"""The in-process recorder: ``Monitor`` and ``init()``.

The training thread's whole cost is a clock read and a tuple appended to a deque. A writer thread
turns the deque into batches in the spool every ``flush_interval``; a sender thread (only when not
under the sidecar, which sends for its child) delivers the spool to the server.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import time
import traceback
import uuid
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from time import perf_counter

from agent import config, log
from agent.progress import Progress
from agent.sender import Sender, SenderThread
from agent.spool import Spool, SpoolWriter
from agent.transport import HttpTransport

MAX_BATCH_EVENTS = 20_000


class _StepTimer:
    """Context manager handed out by ``Monitor.step()``; reused, so entering allocates nothing."""

    __slots__ = ("_mon", "n", "_t0")

    def __init__(self, mon: Monitor) -> None:
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


class _WaitTimer:
    __slots__ = ("_mon", "_t0")

    def __init__(self, mon: Monitor) -> None:
        self._mon = mon
        self._t0 = 0.0

    def __enter__(self):
        self._t0 = perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._mon._wait += perf_counter() - self._t0
        return False


class Monitor:
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
        flush_interval: float = 0.25,
        max_queue: int = 1_000_000,
        send: bool | None = None,
        attrs: dict | None = None,
    ) -> None:
        sidecar_dir = os.environ.get(config.ENV_SIDECAR)
        self.job = job or config.env_str(config.ENV_JOB) or Path(sys.argv[0] or "job").stem or "job"
        self.run_id = run_id or config.env_str(config.ENV_RUN_ID) or uuid.uuid4().hex
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
        self.attrs = {"hostname": config.hostname(), "pid": os.getpid(), **_sidecar_attrs(), **(attrs or {})}
        self.dropped = 0
        self.flush_interval = flush_interval
        self._cap = max_queue
        self._steps: deque = deque()
        self._events: deque = deque(maxlen=10_000)
        self._metrics: deque = deque(maxlen=100_000)
        self._last_step = 0
        self._wait = 0.0
        self._seq = 0
        self._reported_dropped = 0
        self._step_timer = _StepTimer(self)
        self._wait_timer = _WaitTimer(self)
        # Wall clock of a perf_counter reading: the hot path only reads perf_counter.
        self._wall_offset = time.time() - perf_counter()
        self._closed = False
        # Set by init() outside the sidecar: close() then reports how the process ended.
        self.report_exit = False
        self.exit_code = 0
        self._stop = threading.Event()
        self._flush_lock = threading.Lock()
        self._writer = SpoolWriter(self.spool_dir, self.stream)
        self.progress: Progress | None = None  # set by init() under the sidecar
        self._write_meta()
        self._writer_thread = threading.Thread(target=self._write_loop, name="tpuwatch-writer", daemon=True)
        self._writer_thread.start()
        self._sender_thread: SenderThread | None = None
        want_send = (not self.under_sidecar) if send is None else send
        if want_send:
            if self.server:
                sender = Sender(Spool(self.spool_dir), HttpTransport(self.server, self.token, timeout=5.0))
                self._sender_thread = SenderThread(sender)
                self._sender_thread.start()
            else:
                log.warn_once(
                    "no-server",
                    f"no server set (--server or TPUWATCH_SERVER); recording to "
                    f"{self.spool_dir} for a later `tpuwatch agent sync`",
                )

    # -- the hot path -------------------------------------------------------------------------

    def step(self, n: int | None = None) -> _StepTimer:
        """Time one training step: ``with mon.step(): ...``. Steps number themselves unless given."""
        timer = self._step_timer
        timer.n = n
        return timer

    def input_wait(self) -> _WaitTimer:
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

    # -- the rest -----------------------------------------------------------------------------

    def event(self, kind: str, message: str = "", **data) -> None:
        """Record an event (``error``, ``checkpoint``, ``epoch``, ...) with optional JSON data."""
        self._events.append((time.time(), kind, message, data or None))

    @contextmanager
    def phase(self, name: str):
        """Mark a long phase that makes no steps (a checkpoint save, an eval pass), so the server's
        stall alert allows it its own, longer time: ``with mon.phase("checkpoint"): save()``."""
        self.event("phase", name, name=name, state="begin")
        try:
            yield self
        finally:
            self.event("phase", name, name=name, state="end")

    def metric(self, name: str, value: float, chip: int | None = None, ts: float | None = None) -> None:
        """Record a sample of a named metric, e.g. ``hbm.used_bytes`` for chip 0."""
        self._metrics.append((ts or time.time(), name, chip, float(value)))

    def flush(self) -> None:
        """Write what is queued to the spool now (the writer thread does this on its own)."""
        with self._flush_lock:
            while True:
                batch, count = self._take_batch()
                if batch is None:
                    return
                payload = json.dumps(batch, separators=(",", ":"), default=str).encode()
                self._writer.append(payload, count)
                if self.progress is not None and batch["steps"]:
                    self.progress.update(batch["steps"])
                if count < MAX_BATCH_EVENTS:
                    return

    def heartbeat(self) -> None:
        """Write a batch even when nothing happened, so the server knows this host is alive."""
        with self._flush_lock:
            batch, count = self._take_batch(force=True)
            payload = json.dumps(batch, separators=(",", ":"), default=str).encode()
            self._writer.append(payload, count)

    def close(self, timeout: float = 5.0) -> None:
        """Flush and stop. Returns within about ``timeout`` seconds even when the server is down;
        what was not delivered stays in the spool for the sidecar or `tpuwatch agent sync`."""
        if self._closed:
            return
        self._closed = True
        if self.report_exit:
            self.event("exit", "", code=self.exit_code, signal=None)
        try:
            self._stop.set()
            self._writer_thread.join(max(0.1, timeout / 4))
            self.flush()
            self._writer.close()
            if self._sender_thread is not None:
                self._sender_thread.drain(max(0.5, timeout * 3 / 4))
        except Exception as exc:
            log.warn(f"close: {type(exc).__name__}: {exc}")

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ----------------------------------------------------------------------------

    def _take_batch(self, force: bool = False):
        steps_q, events_q, metrics_q = self._steps, self._events, self._metrics
        if not (steps_q or events_q or metrics_q or force or self.dropped != self._reported_dropped):
            return None, 0
        off = self._wall_offset
        steps = []
        pop = steps_q.popleft
        for _ in range(min(len(steps_q), MAX_BATCH_EVENTS)):
            n, t, d, w = pop()
            steps.append((n, round(t + off, 6), round(d, 7), round(w, 7)))
        events = [events_q.popleft() for _ in range(min(len(events_q), MAX_BATCH_EVENTS - len(steps)))]
        room = MAX_BATCH_EVENTS - len(steps) - len(events)
        metrics = [metrics_q.popleft() for _ in range(min(len(metrics_q), room))]
        batch = {
            "v": 1,
            "stream": self.stream,
            "seq": self._seq,
            "run": {"run_id": self.run_id, "job": self.job, "host": self.host_index, "attrs": self.attrs},
            "sent_at": time.time(),
            "steps": steps,
            "events": events,
            "metrics": metrics,
            "dropped": self.dropped,
        }
        self._reported_dropped = self.dropped
        self._seq += 1
        return batch, len(steps) + len(events) + len(metrics)

    def _write_loop(self) -> None:
        while not self._stop.wait(self.flush_interval):
            try:
                self.flush()
                with self._flush_lock:  # a job gone quiet (a hang) must not keep its last steps unsent
                    self._writer.rotate_if_due()
            except Exception as exc:  # a full disk must not reach training
                log.warn_once("write", f"cannot write the spool: {type(exc).__name__}: {exc}")

    def _write_meta(self) -> None:
        meta = self.spool_dir / "meta.json"
        if not meta.exists():
            info = {"run_id": self.run_id, "job": self.job, "host": self.host_index, "server": self.server}
            tmp = meta.with_suffix(".tmp")
            tmp.write_text(json.dumps(info))
            os.replace(tmp, meta)


def _sidecar_attrs() -> dict:
    """Run attributes the sidecar learned (the TPU identity): whichever process's batch reaches
    the server first creates the host row, so the child carries them too."""
    raw = os.environ.get(config.ENV_ATTRS)
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def init(job: str | None = None, **kwargs) -> Monitor:
    """Start recording this process's training job; see :class:`Monitor` for the options.

    Outside the sidecar, the job is marked finished when the process exits, and an uncaught
    exception is recorded as the job's error.
    """
    mon = Monitor(job, **kwargs)
    if not mon.under_sidecar:
        _install_exit_hooks(mon)
    else:
        # The sidecar watches for stalls through this file, and may ask for stacks by signal.
        mon.progress = Progress(mon.spool_dir)
        mon.progress.register_stacks()
    atexit.register(mon.close)  # what is still queued reaches the spool even without close()
    return mon


def _install_exit_hooks(mon: Monitor) -> None:
    previous = sys.excepthook

    def excepthook(exc_type, exc, tb):
        if issubclass(exc_type, KeyboardInterrupt):
            mon.exit_code = 130
        else:
            mon.exit_code = 1
            text = "".join(traceback.format_exception(exc_type, exc, tb))
            mon.event("error", text.rstrip(), source="traceback")
        previous(exc_type, exc, tb)

    sys.excepthook = excepthook
    mon.report_exit = True
