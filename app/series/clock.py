"""A job's clock: when its steps happened, as at most ``points`` (step, UNIX time) pairs.

The job page draws step series (step time, loss) and time series (HBM, duty cycle) on one x axis
of the reader's choosing; static/js/xaxis.js maps between the two by interpolating this clock.
A long run reads its rollups (each bucket's last step time), not its raw steps.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.models import LEVEL_WIDTHS, Job, Step, StepRollup
from tpuwatch.server.series.service import host_indexes


def step_clock(session: Session, job: Job, points: int = 1000) -> list[list[float]]:
    """``[[step, ts], ...]`` in step order for the job's first host; empty without steps.

    >>> # step_clock(session, job)[:2] -> [[1, 1763945000.2], [2, 1763945000.4]]
    """
    hosts = host_indexes(session, job.id)
    if job.last_step is None or not hosts:
        return []
    host, last = hosts[0], int(job.last_step)
    if last + 1 <= points:
        rows = session.execute(
            select(Step.step, Step.ts)
            .where(Step.job_id == job.id, Step.host_index == host)
            .order_by(Step.step)
            .limit(points)
        ).all()
        if rows:
            return _monotonic(_started(job, rows[0][0]) + [(float(s), float(t)) for s, t in rows])
    level = next((i for i, w in enumerate(LEVEL_WIDTHS) if (last + 1) / w <= points), len(LEVEL_WIDTHS) - 1)
    width = LEVEL_WIDTHS[level]
    r = StepRollup
    rows = session.execute(
        select(r.bucket, r.last_ts)
        .where(r.job_id == job.id, r.level == level, r.host_index == host)
        .order_by(r.bucket)
        .limit(points * 2)
    ).all()
    first = rows[0][0] if rows else 0
    return _monotonic(_started(job, first) + [(float(min(b + width - 1, last)), float(t)) for b, t in rows])


def _started(job: Job, first_step: int) -> list[tuple[float, float]]:
    """The job's start as the step before its first: what happened before step 1 ended (setup,
    compilation) maps between the two."""
    return [(float(first_step) - 1, float(job.started_at))] if job.started_at else []


def _monotonic(pairs: list[tuple[float, float]]) -> list[list[float]]:
    """Only pairs where both step and time move forward: interpolation needs both to rise.

    >>> _monotonic([(1, 10.0), (2, 9.0), (3, 11.0), (3, 12.0)])
    [[1, 10.0], [3, 11.0]]
    """
    out: list[list[float]] = []
    for s, t in pairs:
        if not out or (s > out[-1][0] and t > out[-1][1]):
            out.append([s, t])
    return out
