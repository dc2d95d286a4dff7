"""Why a job died when its own output does not say: the TPU node's state around the end.

The agent polls the Cloud TPU API and records ``node_state`` events; a state that takes the VM away
(PREEMPTED, TERMINATED, REPAIRING, ...) or an unhealthy health value carries ``likely_cause``. When
a job failed or went silent, the last node state seen before (or shortly after) its end names the
likely cause, unless the node was reported fine again afterwards.
"""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.jobs.schemas import LikelyCause
from tpuwatch.server.models import Event, Job
from tpuwatch.wire import Kind

# The node state poll runs every 30 to 60 s, and a preempted VM's agent may die first:
# a bad state reported this long after the job's end still explains it.
AFTER_END = 600.0
SUMMARIES = {
    "preemption": "the TPU node was preempted",
    "terminated": "the TPU node was terminated",
    "repair": "the TPU node went into repair",
    "stopped": "the TPU node was stopped",
    "deleted": "the TPU node was deleted",
    "restart": "the TPU node restarted",
    "unhealthy": "the TPU node was reported unhealthy",
    "out_of_memory": "the TPU node reported running out of memory",
}


def likely_cause(session: Session, job: Job, status: str | None = None) -> LikelyCause | None:
    """The node-state cause of a ``failed`` or ``lost`` job, or None. ``status`` is the job's
    effective status when the caller knows it (``lost`` is judged from times, not stored)."""
    status = status or job.status
    if status not in ("failed", "lost"):
        return None
    end = (
        job.ended_at if job.ended_at is not None else (job.last_seen_at if status == "lost" else time.time())
    )
    rows = session.scalars(
        select(Event)
        .where(Event.job_id == job.id, Event.kind == Kind.NODE_STATE, Event.ts <= end + AFTER_END)
        .order_by(Event.ts.desc(), Event.id.desc())
        .limit(1)
    ).all()
    if not rows:
        return None
    event = rows[0]
    data = event.data or {}
    cause = data.get("likely_cause")
    if not cause:
        return None
    cause = str(cause)[:64]
    return LikelyCause(
        cause=cause,
        summary=SUMMARIES.get(cause, f"TPU node: {cause}"),
        state=data.get("state"),
        health=data.get("health"),
        symptoms=[str(s.get("type")) for s in data.get("symptoms") or [] if isinstance(s, dict)][:20],
        event_id=event.id,
        ts=event.ts,
        host_index=event.host_index,
    )
