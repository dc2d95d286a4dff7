"""Admission control: how many requests may work on the database at once, decided before any of
them takes a connection.

Why: a worker thread that waits for a pooled connection while the requests holding the connections
wait for a worker thread is a deadlock; with hundreds of agents that is what wedged the server for
good. So every request that may touch the database first takes a slot of its gate, on the event
loop, where waiting costs no thread and no connection:

- ``ingest`` (``POST /api/v1/ingest``): ``ingest_max_in_flight`` batches at once. They hold no
  connection while they wait: the process's one ingest writer stores them in groups with its one
  connection (app/ingest/writer.py), and they take a thread only to check their body, at most
  ``ingest_threads`` at once, so agents can never take every thread or connection;
- ``reads`` (pages, the API, logins): the rest, well below the pool size, which leaves connections
  for the alert loop.

A request waits for a slot at most ``*_wait_seconds`` and only while fewer than ``*_max_waiting``
wait; otherwise it is answered at once with 503 and ``Retry-After`` (agents back off and keep the
batch in their spool). A batch the ingest gate cannot take is answered 429 instead, with the pace
(``Retry-After`` and ``X-Tpuwatch-Pace``, app/ops/pacing.py): the server is up and storing, the
hosts together send faster than it stores, and each is told how often to send. Agents treat 429
and 503 alike; the status says which it is (a 4,096-host job starting at once met 503s that read
as a failing server).
Every ingest answer carries the interval the server asks of each host (``X-Tpuwatch-Pace``), so
that a big slice spreads itself out before the gate has to refuse anyone. ``/healthz`` and static
files need no slot. With the reads' slots, the ingest threads and the writer's connection below
the thread pool and the connection pool, a request holding a slot always finds a thread and a
connection. ``install`` also sizes anyio's thread pool and turns pool exhaustion
(``sqlalchemy.exc.TimeoutError``) into 503, never 500.

>>> gate = Gate("ingest", limit=1, max_waiting=0, wait_s=0.1)
>>> gate.in_flight, gate.rejected
(0, 0)
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tpuwatch.server.ops.pacing import HEADER as PACE_HEADER
from tpuwatch.server.ops.pacing import Pacing
from tpuwatch.server.security.ratelimit import client_keys

log = logging.getLogger("tpuwatch.admission")

INGEST_PATH = "/api/v1/ingest"
EXEMPT_PREFIXES = ("/healthz", "/static/")
RETRY_AFTER_S = 1


class Gate:
    """At most ``limit`` holders; at most ``max_waiting`` waiters, each for at most ``wait_s``."""

    def __init__(self, name: str, limit: int, max_waiting: int, wait_s: float) -> None:
        self.name, self.limit, self.max_waiting, self.wait_s = name, max(1, limit), max_waiting, wait_s
        self.in_flight = 0
        self.rejected = 0
        self._waiters: deque[asyncio.Future] = deque()

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def acquire(self) -> bool:
        """Take a slot; False when none came free in time (or too many wait already)."""
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
            return True
        if len(self._waiters) >= self.max_waiting:
            self.rejected += 1
            return False
        # A slot is handed over by ``release`` (in_flight stays counted): no thundering herd.
        future = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        try:
            await asyncio.wait_for(asyncio.shield(future), self.wait_s)
            return True
        except BaseException as exc:  # timed out, or the request was cancelled while waiting
            if future.done() and not future.cancelled():
                self.release()  # handed a slot just as we gave up: pass it on
            else:
                future.cancel()
            if not isinstance(exc, TimeoutError):
                raise
            self.rejected += 1
            return False
        finally:
            if future in self._waiters:
                self._waiters.remove(future)

    def release(self) -> None:
        while self._waiters:
            future = self._waiters.popleft()
            if not future.done():
                future.set_result(None)  # the slot passes to the longest waiter
                return
        self.in_flight -= 1


def busy_response(gate: Gate, retry_after: int = RETRY_AFTER_S) -> JSONResponse:
    return JSONResponse(
        {"detail": f"server busy ({gate.name}: {gate.limit} requests in flight): retry in {retry_after} s"},
        status_code=503,
        headers={"Retry-After": str(retry_after)},
    )


def _over_pace(gate: Gate, pacing: Pacing) -> JSONResponse:
    after = pacing.retry_after()  # the hosts refused together told later and later seconds
    return JSONResponse(
        {
            "detail": f"hosts send faster than this server stores ({gate.limit} batches in flight): "
            f"send this batch again in {after} s, and batches every {pacing.interval():g} s"
        },
        status_code=429,
        headers={"Retry-After": str(after), PACE_HEADER: f"{pacing.interval():g}"},
    )


class AdmissionMiddleware:
    def __init__(self, app: ASGIApp, ingest: Gate, reads: Gate, pacing: Pacing | None = None) -> None:
        self.app = app
        self.ingest, self.reads = ingest, reads
        self.pacing = pacing or Pacing()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(EXEMPT_PREFIXES):
            await self.app(scope, receive, send)
            return
        ingest = scope["path"] == INGEST_PATH and scope["method"] == "POST"
        if ingest:
            await self._ingest(scope, receive, send)
            return
        if not await self.reads.acquire():
            await busy_response(self.reads)(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.reads.release()

    async def _ingest(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.pacing.served(client_keys(scope)[0])  # the rate limit's key: this token's host
        if not await self.ingest.acquire():
            self.pacing.refused()
            await _over_pace(self.ingest, self.pacing)(scope, receive, send)
            return

        async def paced_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                # Sized as the answer goes (on the loop: its CPU), not as the batch came: a
                # starting slice's first answers then count the hosts that came with them.
                pace = f"{self.pacing.interval(time.thread_time()):g}".encode()
                message = dict(message, headers=[*message.get("headers", ()), (PACE_HEADER.encode(), pace)])
            await send(message)

        try:
            await self.app(scope, receive, paced_send)
        finally:
            self.ingest.release()


def install(app, settings) -> None:
    """Add the gates (outside the routes, inside the rate limit), and the 503 for pool exhaustion."""
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    ingest = Gate(
        "ingest", settings.ingest_max_in_flight, settings.ingest_max_waiting, settings.ingest_wait_seconds
    )
    reads = Gate(
        "reads", settings.reads_max_in_flight, settings.reads_max_waiting, settings.reads_wait_seconds
    )
    pacing = Pacing(cpu_budget=settings.ingest_cpu_budget, cap=settings.ingest_max_pace_seconds)
    app.state.admission = {"ingest": ingest, "reads": reads}
    app.state.pacing = pacing
    app.add_middleware(AdmissionMiddleware, ingest=ingest, reads=reads, pacing=pacing)

    async def pool_exhausted(request, exc: PoolTimeout):
        log.warning("no database connection free for %s %s: answered 503", request.method, request.url.path)
        return JSONResponse(
            {"detail": f"server busy (no database connection free): retry in {RETRY_AFTER_S} s"},
            status_code=503,
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )

    app.add_exception_handler(PoolTimeout, pool_exhausted)


def size_thread_pool(settings) -> None:
    """anyio's default limiter (40 threads) made explicit: blocking routes and ingest share it."""
    import anyio.to_thread

    anyio.to_thread.current_default_thread_limiter().total_tokens = settings.threadpool_size
