"""Operational endpoints: liveness, and plotly.js served from the plotly package (never a CDN)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

api = APIRouter(tags=["ops"])


@api.get("/healthz")
async def healthz(request: Request):
    """Liveness, and the database file's state: 503 ``degraded`` with what to do when it is damaged.
    On the event loop: it needs no worker thread, so busy threads cannot hide a live server. Also
    how busy ingest is: batches in flight and waiting, refused so far, the pace asked of hosts, and
    the writer's groups (writer.py)."""
    health = getattr(request.app.state, "db_health", None)
    if health is not None and health.damaged:
        return JSONResponse(health.report(), status_code=503)
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
            "pace_seconds": pacing.interval(),
        }
        writer = getattr(request.app.state, "writer", None)
        if writer is not None:
            body["ingest"]["writer"] = writer.stats()  # groups stored, batches in them, queued now
    timing = getattr(request.app.state, "alert_timing", None)
    if timing is not None and timing.passes:  # this process leads the alert loop
        body["alerts"] = timing.report()
    return JSONResponse(body)
