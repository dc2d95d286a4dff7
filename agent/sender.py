"""Delivers spooled batches to the server, at least once and in order.

Network errors and 5xx are retried with full-jitter exponential backoff; 429 and 503 wait what
``Retry-After`` says plus that backoff; 413 splits the batch in two; any other 4xx is reported once
and the batch is set aside (retrying cannot help). A batch is acknowledged in the spool only once the
server stored it; while the sender backs off, batches wait in the (bounded) spool.

``Pace`` sets how often a host sends (``Monitor`` writes one batch per interval): a base interval
with jitter, so that the hosts of a slice do not send in step; doubled by every sign of
backpressure, shrunk back on success.

``Rules`` holds these decisions without any I/O (what a reply means, how long to wait after one):
``Sender`` drives them with its spool and HTTP connection in a thread, and the benchmarks' host
emulator (bench/emulator.py) drives the same rules for thousands of hosts on one event loop.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field

from tpuwatch import log, wire
from tpuwatch.asks import Asks
from tpuwatch.batching import merge_batches, split_batch
from tpuwatch.spool import Spool, SpoolWriter, read_records
from tpuwatch.transport import HttpTransport, TransportError

# Our own generator: the global one belongs to the program being watched, which may seed it
# and must get the same draws with tpuwatch as without.
_jitter = random.Random()

BUSY_SPREAD_CAP_S = 5.0
# One request carries the batches a segment holds (written every flush interval, a segment closed
# every send interval), up to these sizes; the server accepts 50,000 events and 16 MiB.
MERGE_MAX_EVENTS = 20_000
MERGE_MAX_BYTES = 4 << 20
MAX_ASKED_PACE_S = 60.0  # the longest interval a server may ask for: data still arrives within a minute


@dataclass
class Stats:
    sent_batches: int = 0
    sent_events: int = 0
    duplicates: int = 0
    rejected_batches: int = 0
    split_batches: int = 0
    truncated_bytes: int = 0
    spool_dropped_events: int = 0
    throttled: int = 0  # 429: over a rate limit
    busy: int = 0  # 503: the server had no room (admission, pool); both mean slow down
    server_errors: int = 0  # other 5xx
    requests: int = 0  # every request made, answered or not
    request_bytes: int = 0  # their bodies as sent (gzip included)
    errors: list[str] = field(default_factory=list)


class Backoff:
    """Full-jitter exponential backoff (AWS architecture blog), capped."""

    def __init__(self, base: float = 0.5, cap: float = 30.0) -> None:
        self.base, self.cap, self.attempt = base, cap, 0

    def next_delay(self) -> float:
        delay = _jitter.uniform(0, min(self.cap, self.base * (2**self.attempt)))
        self.attempt += 1
        return delay

    def reset(self) -> None:
        self.attempt = 0


class Pace:
    """The interval between a host's batches. It doubles when the server pushes back (429, 503),
    shrinks by a quarter on each success, and never goes below what the server last asked of every
    host (``X-Tpuwatch-Pace``: a big slice is asked to send less often, app/ops/pacing.py).
    Example::

    >>> p = Pace(base=1.0, cap=8.0)
    >>> p.slow_down(); p.slow_down(retry_after=5.0); p.interval
    5.0
    >>> p.speed_up(); p.interval
    3.75
    >>> p.follow(6.0); p.interval  # the server asks for 6 s
    6.0
    >>> p.follow(1.0); p.speed_up(); p.interval  # ... and then for the base again
    4.5
    """

    def __init__(self, base: float = wire.SEND_INTERVAL_S, cap: float = 15.0, jitter: float = 0.25) -> None:
        self.base, self.cap, self.jitter = base, max(base, cap), jitter
        self.interval = base
        self.floor = base  # the least interval: the base, or what the server asked for

    def next_wait(self) -> float:
        """The interval, jittered by +/- ``jitter`` so that hosts started together drift apart."""
        return jittered(self.interval, self.jitter)

    def slow_down(self, retry_after: float | None = None) -> None:
        self.interval = min(max(self.cap, self.floor), max(self.interval * 2.0, retry_after or 0.0))

    def speed_up(self) -> None:
        self.interval = max(self.floor, self.interval * 0.75)

    def follow(self, asked: float | None) -> None:
        """Keep at least the interval the server asked for (bounded: a server cannot silence a host)."""
        if asked is None:
            return
        self.floor = min(MAX_ASKED_PACE_S, max(self.base, asked))
        self.interval = max(self.interval, self.floor)


def jittered(seconds: float, fraction: float = 0.25) -> float:
    """``seconds`` times a random factor within 1 +/- ``fraction`` (from the agent's own generator)."""
    return seconds * _jitter.uniform(1.0 - fraction, 1.0 + fraction)


class Retry(Exception):
    """The server could not take the batch now: send it again later (``delay``: its Retry-After)."""

    def __init__(self, delay: float | None, reason: str) -> None:
        super().__init__(reason)
        self.delay = delay


STORED, SPLIT, REFUSED = "stored", "split", "refused"


class Rules:
    """What a host decides about its requests, with no I/O: the pace, the backoff and the counts.

    >>> from tpuwatch.transport import Reply
    >>> r = Rules(Pace(base=1.0))
    >>> r.heard(Reply(200, pace=4.0), events=10), r.pace.interval
    ('stored', 4.0)
    >>> r.heard(Reply(413), events=10)
    'split'
    >>> try:
    ...     r.heard(Reply(503, retry_after=2.0), events=10)
    ... except Retry as retry:
    ...     wait = r.retry_wait(retry)
    >>> 2.0 <= wait <= 2.0 + BUSY_SPREAD_CAP_S, r.stats.busy, r.pace.interval
    (True, 1, 8.0)
    """

    def __init__(self, pace: Pace | None = None, asks: Asks | None = None) -> None:
        self.stats = Stats()
        self.backoff = Backoff()
        self.pace = pace or Pace()
        self.asks = asks if asks is not None else Asks()

    def sent(self, size: int) -> None:
        """Count a request about to go out (its body as sent)."""
        self.stats.requests += 1
        self.stats.request_bytes += size

    def heard(self, reply, events: int) -> str:
        """What the server's answer to a batch of ``events`` means: ``STORED`` (it has it),
        ``SPLIT`` (too large: send it in halves) or ``REFUSED`` (unacceptable: retrying cannot
        help); raises ``Retry`` when it must come again later (429, 503, other 5xx)."""
        self.pace.follow(reply.pace)
        self.asks.hear(reply.ask)
        if reply.ok:
            self.stats.sent_batches += 1
            self.stats.sent_events += events
            if reply.status == 200 and "duplicate" in reply.message:
                self.stats.duplicates += 1
            return STORED
        if reply.status in (429, 503):
            if reply.status == 429:
                self.stats.throttled += 1
            else:
                self.stats.busy += 1
            raise Retry(reply.retry_after, f"server asked to slow down ({reply.status})")
        if reply.status >= 500:
            self.stats.server_errors += 1
            raise Retry(None, f"server error {reply.status}")
        return SPLIT if reply.status == 413 else REFUSED

    def refused(self, reply) -> str:
        """Count a batch refused for good; the message to warn with."""
        self.stats.rejected_batches += 1
        msg = f"server refused a batch ({reply.status}): {reply.message}"
        self.stats.errors.append(msg)
        return msg

    def retry_wait(self, retry: Retry) -> float:
        """Seconds to wait before the next try, and the pace slowed. Retry-After is a floor; the
        jittered backoff on top spreads the hosts that heard it (a busy server is up: a few seconds
        of spread is enough, the pace slows the host anyway)."""
        spread = self.backoff.next_delay()
        delay = spread if retry.delay is None else retry.delay + min(spread, BUSY_SPREAD_CAP_S)
        self.pace.slow_down(retry.delay)
        return delay

    def round_done(self) -> None:
        """Everything that was ready went out: the backoff starts again and the pace eases."""
        self.backoff.reset()
        self.pace.speed_up()


class Sender(Rules):
    """Sends what a spool folder holds through one transport."""

    def __init__(
        self,
        spool: Spool,
        transport: HttpTransport,
        max_spool_bytes: int = 1 << 30,
        pace: Pace | None = None,
        asks: Asks | None = None,
    ):
        super().__init__(pace, asks)
        self.spool = spool
        self.transport = transport
        self.max_spool_bytes = max_spool_bytes
        self.wake = threading.Event()  # set to cut a backoff short (the agent is closing)
        self.in_flight = False  # a request is out and unanswered (Monitor waits to close a segment)

    def deliver(self, deadline: float | None = None) -> bool:
        """Send every closed segment. True when the spool is drained, False if it must wait.

        On a retryable failure this sleeps the backoff (bounded by ``deadline``) and returns False.
        """
        recovery = self.spool.recover_abandoned()
        self._lost(truncated_bytes=recovery.truncated_bytes)
        self._lost(dropped_events=self.spool.enforce_limit(self.max_spool_bytes))
        cut_now = False  # a loss found after sending: its notice goes out in the next round
        try:
            for segment, run in self.spool.pending_groups(MERGE_MAX_EVENTS, MERGE_MAX_BYTES):
                if deadline is not None and time.monotonic() > deadline:
                    return False
                merged = merge_batches([r.payload for r in run])
                events = sum(r.events for r in run)
                if merged is None or not self._send_payload(merged, events, merged=len(run) > 1):
                    # Refused whole (or never of one stream): one by one, so that one bad batch
                    # costs only itself, as it did before batches travelled together.
                    for record in run if len(run) > 1 else ():
                        self._send_payload(record.payload, record.events)
                        self.spool.set_acked(segment, record.end)
                if run[-1].end >= segment.stat().st_size:
                    self.spool.remove(segment)  # all of it is stored: no .ack to write and read back
                else:
                    self.spool.set_acked(segment, run[-1].end)
            for segment in self.spool.ready():
                acked, size = self.spool.acked(segment), segment.stat().st_size
                if acked < size:
                    # Sent up to here; what follows is either new (keep) or a corrupt tail (cut).
                    _, valid_end, size = read_records(segment, acked)
                    if valid_end > acked:
                        continue
                    self._lost(truncated_bytes=size - acked)
                    cut_now = True
                self.spool.remove(segment)
        except Retry as retry:
            delay = self.retry_wait(retry)
            if deadline is not None:
                delay = min(delay, max(0.0, deadline - time.monotonic()))
            log.warn_once(
                "send",
                f"cannot deliver to {self.transport.server} yet ({retry}); "
                "data stays in the spool and will be retried",
            )
            self.wake.wait(delay)
            self.wake.clear()
            return False
        except FileNotFoundError:
            return False  # another sender took the segment; look again
        self.round_done()
        return not cut_now

    def _lost(self, truncated_bytes: int = 0, dropped_events: int = 0) -> None:
        """Count data the spool had to give up and tell the server, through the spool itself."""
        if not (truncated_bytes or dropped_events):
            return
        self.stats.truncated_bytes += truncated_bytes
        self.stats.spool_dropped_events += dropped_events
        if truncated_bytes:
            kind, msg = "spool_truncated", f"cut {truncated_bytes} bytes of a torn or corrupt spool tail"
        else:
            kind, msg = "spool_dropped", f"spool full: dropped the {dropped_events} oldest events"
        log.warn(f"{msg} in {self.spool.directory}")
        try:
            notice = loss_notice(self.spool.directory, kind, msg, truncated_bytes, dropped_events)
            if notice is not None:
                writer = SpoolWriter(self.spool.directory, f"notice-{uuid.uuid4().hex[:16]}")
                writer.append(notice, 1)
                writer.close()
        except (OSError, ValueError) as exc:  # a full disk: the warning above is all we can do
            log.warn_once("notice", f"cannot record the spool loss: {exc}")

    def _send_payload(self, payload: bytes, events: int, merged: bool = False) -> bool:
        """Deliver one batch: True when the server has it (or part of it), False when it refused it
        for good (counted and told, unless it was ``merged``: its batches are then sent alone)."""
        self.in_flight = True
        try:
            reply = self.transport.send(payload, self.sent)
        except TransportError as exc:
            raise Retry(None, str(exc)) from exc
        finally:
            self.in_flight = False
        verdict = self.heard(reply, events)
        if verdict == STORED:
            return True
        if verdict == SPLIT:
            halves = split_batch(payload)
            if halves:
                self.stats.split_batches += 1
                return any([self._send_payload(half, n) for half, n in halves])
        if merged:
            return False
        log.warn(self.refused(reply))
        return False


def loss_notice(directory, kind: str, message: str, truncated_bytes: int, dropped_events: int):
    """A one-event batch for the run a spool folder belongs to (None when the folder has no meta)."""
    try:
        meta = json.loads((directory / "meta.json").read_text())
    except FileNotFoundError:
        return None
    now = time.time()
    batch = wire.batch(
        stream=f"notice-{uuid.uuid4().hex}",
        seq=0,
        run=wire.run_info(meta["run_id"], meta["job"], meta.get("host", 0), {}),
        sent_at=now,
        steps=[],
        events=[[now, kind, message, {"bytes": truncated_bytes, "events": dropped_events}]],
        metrics=[],
        dropped=dropped_events,  # a stream of its own: the server adds it to the job's dropped events
    )
    return json.dumps(batch, separators=(",", ":")).encode()


class SenderThread(threading.Thread):
    """Runs a Sender until stopped; ``drain(timeout)`` tries to empty the spool before it stops."""

    def __init__(self, sender: Sender, poll_interval: float = 0.2) -> None:
        super().__init__(name="tpuwatch-sender", daemon=True)
        self.sender = sender
        self.poll_interval = poll_interval
        self._stop_at: float | None = None
        self._wake = threading.Event()

    def run(self) -> None:
        while True:
            stop_at = self._stop_at
            try:
                drained = self.sender.deliver(deadline=stop_at)
            except Exception as exc:  # never let the sender die silently
                log.warn(f"sender: {type(exc).__name__}: {exc}")
                drained = False
                time.sleep(self.poll_interval)
            if stop_at is not None and (drained or time.monotonic() >= stop_at):
                return
            self._wake.wait(self.poll_interval)
            self._wake.clear()

    def wake(self) -> None:
        """Look at the spool now (a new batch was written)."""
        self._wake.set()

    def drain(self, timeout: float) -> None:
        self._stop_at = time.monotonic() + timeout
        self._wake.set()
        self.sender.wake.set()  # a backoff of up to 30 s must not outlast the drain
        self.join(timeout + 1.0)
        self.sender.transport.close()
