"""One thread per server process (or a few) stores agents' batches, many to a transaction (group commit).

Stored one by one, a batch cost some 5 ms of the server's CPU and 1.5 ms of PostgreSQL's, nearly
all of it per statement and per commit, not per step: a slice of 1,024 hosts could send no more
than a batch per host every ten seconds or so. Requests now hand their checked bytes to this
thread and wait on the event loop (no thread, no connection held). The thread takes whatever has
queued (up to ``max_batches`` batches, or until ``max_events`` records are passed), checks the
tokens and stores the lot in one transaction (service.store): at 64 batches a group, 0.3 ms of
server CPU and 0.2 ms of PostgreSQL's a batch. When nothing else waits, a group is one batch, stored at once.

A group's fixed cost (the token's check, the job's row, the keys, the commit) is paid per group, so
small groups are dear: a 4,096-host job paced to a batch per host every 8 s brought groups of 7 to
13 batches, and each batch cost the writer about four times what it costs in a group of 64. While
the server paces its hosts beyond their own 1 s (``wait``, from app/ops/pacing.py), a step already
waits seconds for its host's next batch; so the writer then waits a little (a fiftieth of the pace,
at most 0.25 s) for more batches before it stores the first, and stores them together. A small
job is never paced, and its batches are stored at once, as before.

If the group's transaction fails, each of its batches is stored again in a transaction of its
own, so a batch that cannot be stored fails alone. On PostgreSQL more threads may take groups side
by side (``ingest_writers``, default 1: three gained nothing in bench_pod on a 2-core machine); on
SQLite one thread is the only ingest writer of the process, and batches no longer queue in
SQLite's busy handler.

>>> w = Writer(sessions=None)
>>> w.stats()
{'queued': 0, 'groups': 0, 'batches': 0, 'largest_group': 0}
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from fastapi import HTTPException
from sqlalchemy.orm import Session, sessionmaker

from tpuwatch.server.auth.principal import Principal
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest import service
from tpuwatch.server.ingest.schemas import Batch, IngestResult

log = logging.getLogger("tpuwatch.ingest")

MAX_BATCHES = 64
MAX_EVENTS = 50_000


@dataclass
class Delivery:
    """A batch as its request hands it over: the token, the batch (or why it is malformed, told
    only once the token is known good), the SHA-256 of its bytes, and how to check the token."""

    token: str
    batch: Batch | None
    digest: str
    principal_of: Callable[[Session, str], Principal]  # raises HTTPException (401, 429)
    invalid: HTTPException | None = None
    cpu_s: float = 0.0  # CPU its request thread spent reading and checking it
    future: Future = field(default_factory=Future)

    @property
    def size(self) -> int:
        return self.batch.size if self.batch is not None else 0


_STOP = object()


class Writer:
    """``submit`` a delivery, get a future of its ``IngestResult`` (or its HTTP error)."""

    def __init__(
        self,
        sessions: sessionmaker | None,
        spent: Callable[[float], None] | None = None,
        max_batches: int = MAX_BATCHES,
        max_events: int = MAX_EVENTS,
        threads: int = 1,
        wait: Callable[[], float] | None = None,
    ) -> None:
        self.sessions, self.spent = sessions, spent
        self.wait = wait  # seconds a group may wait for more batches after its first
        self.max_batches, self.max_events = max_batches, max_events
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._run, name=f"tpuwatch-ingest-writer-{i}", daemon=True)
            for i in range(max(1, threads))
        ]
        self._lock = threading.Lock()
        self._stopping = False
        self.groups = self.batches = self.largest = 0

    def start(self) -> Writer:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        """Store what is queued (within ``timeout``), then end the threads."""
        self._stopping = True
        for _ in self._threads:
            self._queue.put(_STOP)
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def submit(self, delivery: Delivery) -> Future:
        if self._stopping or not any(t.is_alive() for t in self._threads):
            delivery.future.set_exception(
                HTTPException(503, "the server is stopping: retry shortly", headers={"Retry-After": "1"})
            )
        else:
            self._queue.put(delivery)
        return delivery.future

    def stats(self) -> dict:
        return {
            "queued": self._queue.qsize(),
            "groups": self.groups,
            "batches": self.batches,
            "largest_group": self.largest,
        }

    def _run(self) -> None:
        while True:
            group, stopping = self._next_group()
            if group:
                started = time.thread_time()
                try:
                    self._store(group)
                except Exception:  # never let the thread die: every request would hang
                    log.exception("storing a group of %d batches failed", len(group))
                    for d in group:
                        if not d.future.done():
                            d.future.set_exception(HTTPException(500, "the batch could not be stored"))
                self._account(group, time.thread_time() - started)
            if stopping:
                self._refuse_rest()
                return

    def _next_group(self) -> tuple[list[Delivery], bool]:
        """Block for one delivery, then take what else has queued (or comes within ``wait``),
        within the group's limits."""
        first = self._queue.get()
        if first is _STOP:
            return [], True
        group, events = [], 0
        item = first
        until = time.monotonic() + (self.wait() if self.wait is not None else 0.0)
        while True:
            if item.future.set_running_or_notify_cancel():  # its request gave up: skip it
                group.append(item)
                events += item.size
            if len(group) >= self.max_batches or events >= self.max_events:
                return group, False
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                left = until - time.monotonic()
                if left <= 0 or self._stopping:
                    return group, False
                try:
                    item = self._queue.get(timeout=left)
                except queue.Empty:
                    return group, False
            if item is _STOP:
                return group, True

    def _store(self, group: list[Delivery]) -> None:
        try:
            with transaction(self.sessions) as session:
                done = self._checked_and_stored(session, group)
        except Exception as exc:
            if len(group) == 1:
                group[0].future.set_exception(exc)
                return
            log.warning("a group of %d batches failed (%s): storing them one by one", len(group), exc)
            for d in group:
                try:
                    with transaction(self.sessions) as session:
                        done = self._checked_and_stored(session, [d])
                except Exception as one:
                    d.future.set_exception(one)
                else:
                    _settle(done)
            return
        _settle(done)  # only once committed: an answer means stored

    def _checked_and_stored(self, session: Session, group: list[Delivery]):
        """Check each delivery's token (once per token in the group) and store the good ones.
        Returns ``(delivery, result or HTTPException)`` pairs to answer after the commit."""
        principals: dict[str, Principal] = {}
        done: list[tuple[Delivery, object]] = []
        good: list[tuple[Delivery, service.Pending]] = []
        for d in group:
            try:
                principal = principals.get(d.token) or d.principal_of(session, d.token)
                principals[d.token] = principal
                if not principal.can_write:
                    raise HTTPException(
                        403, "this token is read-only; agents need a project or ingest-only token"
                    )
                if d.invalid is not None:
                    raise d.invalid
            except HTTPException as exc:
                done.append((d, exc))
                continue
            good.append((d, service.Pending(principal, d.batch, d.digest)))
        if good:
            results = service.store(session, [p for _, p in good])
            done.extend(zip((d for d, _ in good), results, strict=True))
        return done

    def _account(self, group: list[Delivery], cpu_s: float) -> None:
        with self._lock:
            self.groups += 1
            self.batches += len(group)
            self.largest = max(self.largest, len(group))
        if self.spent is not None:
            share = cpu_s / len(group)
            for d in group:
                self.spent(d.cpu_s + share)

    def _refuse_rest(self) -> None:
        busy = HTTPException(503, "the server is stopping: retry shortly", headers={"Retry-After": "1"})
        pending = []
        while True:
            try:
                pending.append(self._queue.get_nowait())
            except queue.Empty:
                break
        for d in pending:
            if d is not _STOP and d.future.set_running_or_notify_cancel():
                d.future.set_exception(busy)


def _settle(done: list[tuple[Delivery, object]]) -> None:
    for d, outcome in done:
        if isinstance(outcome, IngestResult):
            d.future.set_result(outcome)
        else:
            d.future.set_exception(outcome)
