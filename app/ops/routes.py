"""Operational endpoints: liveness, and plotly.js served from the plotly package (never a CDN)."""

from __future__ import annotations

import asyncio
import logging
import os
import time

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

api = APIRouter(tags=["ops"])
log = logging.getLogger("tpuwatch.health")

PROBE_EVERY_S = 2.0
PROBE_TIMEOUT_S = 3.0
# How long an answer waits for the probe it started: a down database's connection is refused at
# once, and a busy one's SELECT 1 (a thread and a pooled connection behind the ingest writer's, on
# a loaded machine) can take most of a second of a /healthz that must answer within one. Past
# this the answer says what the last probe found; the probe goes on and the next answer says its.
PROBE_WAIT_S = 0.25


async def _unreachable(app) -> bool:
    """Whether the database failed to answer ``SELECT 1`` (asked at most every ``PROBE_EVERY_S``, on
    one thread of its own, within ``PROBE_TIMEOUT_S``). The reason goes to the log, not the answer."""
    state = app.state
    checked_at, down = getattr(state, "db_probe", (float("-inf"), False))
    if time.monotonic() - checked_at < PROBE_EVERY_S or getattr(state, "sessions", None) is None:
        return down
    state.db_probe = (time.monotonic(), down)  # one probe at a time
    probe = state.probe_task = asyncio.ensure_future(_probe(state, down))  # held while it runs
    try:
        return await asyncio.wait_for(asyncio.shield(probe), PROBE_WAIT_S)
    except TimeoutError:
        return down


async def _probe(state, down: bool) -> bool:
    if getattr(state, "probe_thread", None) is None:
        state.probe_thread = anyio.CapacityLimiter(1)
    try:
        work = anyio.to_thread.run_sync(_select_one, state.sessions, limiter=state.probe_thread)
        await asyncio.wait_for(work, PROBE_TIMEOUT_S)
        down = False
    except Exception as exc:
        if not down:
            log.error("database unreachable (%s): %s", state.settings.database_url.split("@")[-1], exc)
        down = True
    state.db_probe = (time.monotonic(), down)
    return down


def _select_one(sessions) -> None:
    from sqlalchemy import text

    with sessions() as session:
        session.execute(text("SELECT 1"))


@api.get("/healthz")
async def healthz(request: Request):
    """Liveness, and the database file's state: 503 ``degraded`` with what to do when it is damaged.
    On the event loop: it needs no worker thread, so busy threads cannot hide a live server. Also
    how busy ingest is: batches in flight and waiting, refused so far, the pace asked of hosts, and
    the writer's groups (writer.py)."""
    health = getattr(request.app.state, "db_health", None)
    if health is not None and health.damaged:
        return JSONResponse(health.report(), status_code=503)
    down = await _unreachable(request.app)
    if down:
        body = {"status": "degraded", "database": "unreachable: see the server's log"}
        return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})
    body: dict = {"status": "ok"}
    gates, pacing = getattr(request.app.state, "admission", None), getattr(request.app.state, "pacing", None)
    if gates and pacing:
        gate = gates["ingest"]
        body["ingest"] = {
            "in_flight": gate.in_flight,
            "waiting": gate.waiting,
            "refused": gate.rejected,
            "hosts_sending": pacing.hosts,
            "cpu_ms_per_batch": round(pacing.cost * 1000, 2),
            "loop_cpu_ms_per_request": round(pacing.framework * 1000, 2),
            "pressure": round(pacing.pressure, 2),
            "pace_seconds": pacing.interval(time.thread_time()),  # on the loop: its CPU
            "process": os.getpid(),  # one of several (--workers): each paces its own hosts
        }
        writer = getattr(request.app.state, "writer", None)
        if writer is not None:
            body["ingest"]["writer"] = writer.stats()  # groups stored, batches in them, queued now
    timing = getattr(request.app.state, "alert_timing", None)
    if timing is not None and timing.passes:  # this process leads the alert loop
        body["alerts"] = timing.report()
    return JSONResponse(body)
