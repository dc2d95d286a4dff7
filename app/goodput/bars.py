"""The overview's goodput bar for every job, read with one query for the whole page.

A job's breakdown reads its rollups and events (a few queries): too many for an overview of
hundreds of jobs that refreshes every few seconds. So the alert loop computes live jobs' goodput
about once a minute (and a finished job's once more after its end) and stores the bar on the job
row; the overview draws what is stored. Reads never write it.
"""

from __future__ import annotations

import time

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from tpuwatch.server.models import Job


def bar(goodput, now: float | None = None) -> dict:
    """Shares of the total per part (productive first): what a bar draws."""
    total = goodput.total_s or 0.0
    parts = {"productive": goodput.productive_s, **goodput.badput_s.model_dump()}
    return {
        "total_s": total,
        "goodput": goodput.goodput,
        "at": time.time() if now is None else now,
        "shares": {k: (v / total if total > 0 else 0.0) for k, v in parts.items()},
    }


def store(session: Session, job_id: int, goodput, now: float | None = None) -> None:
    """Keep ``goodput``'s bar on the job row (flushed with the caller's transaction)."""
    session.execute(
        update(Job).where(Job.id == job_id).values(goodput=bar(goodput, now)),
        execution_options={"synchronize_session": False},
    )


def bars(session: Session, job_ids: list[int]) -> dict[int, dict]:
    """``{job id: bar}`` of the jobs that have one."""
    if not job_ids:
        return {}
    rows = session.execute(select(Job.id, Job.goodput).where(Job.id.in_(job_ids), Job.goodput.is_not(None)))
    return {job_id: value for job_id, value in rows if isinstance(value, dict)}
