"""The overview: every job at a glance, trouble first, with a handful of grouped queries for the
whole page (never one per job) so 500 jobs render in well under 200 ms."""

from __future__ import annotations

import time

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal, readable
from tpuwatch.server.dashboard.schemas import Overview, OverviewJob
from tpuwatch.server.goodput.bars import bars
from tpuwatch.server.jobs.service import STATUS_ORDER, list_jobs
from tpuwatch.server.jobs.status import POSTMORTEM
from tpuwatch.server.models import LEVEL_WIDTHS, Event, Job, Project, StepRollup
from tpuwatch.server.series.thinning import FULL_STEP_HOSTS
from tpuwatch.server.settings import Settings
from tpuwatch.wire import Kind

TREND_BUCKETS = 48  # at most this many points in a sparkline


def trend_level(steps_per_host: float) -> int:
    """The finest rollup level that draws a run of this length in at most ``TREND_BUCKETS`` points."""
    for level, width in enumerate(LEVEL_WIDTHS):
        if steps_per_host / width <= TREND_BUCKETS:
            return level
    return len(LEVEL_WIDTHS) - 1


def overview(
    session: Session,
    principal: Principal,
    settings: Settings,
    *,
    status: str | None = None,
    project: str | None = None,
    name: str | None = None,
) -> Overview:
    """Jobs the principal may see with their health figures, stalled/lost/failed first."""
    listing = list_jobs(
        session, principal, settings, status=status, project=project, name=name, limit=settings.jobs_page_size
    )
    jobs = sorted(listing.jobs, key=lambda j: (STATUS_ORDER.get(j.status, 9), -j.started_at, -j.id))
    ids = [j.id for j in jobs]
    trends = _trends(session, {j.id: j.steps for j in jobs})
    errors = _last_errors(session, [j.id for j in jobs if j.errors])
    goodput = bars(session, ids)
    rows = []
    for j in jobs:
        err = errors.get(j.id, {})
        rows.append(
            OverviewJob(
                **j.model_dump(),
                trend=trends.get(j.id, []),
                error_category=err.get("category"),
                error_title=err.get("title"),
                postmortem_url=f"/jobs/{j.id}/postmortem" if j.status in POSTMORTEM else None,
                goodput=goodput.get(j.id),
            )
        )
    return Overview(
        jobs=rows,
        total=listing.total,
        projects=_projects(session, principal),
        status=status,
        project=project,
        name=name or "",
        generated_at=time.time(),
    )


def _trends(session: Session, steps_per_host: dict[int, float]) -> dict[int, list[float]]:
    """Mean step time per bucket (the reference hosts, as the figures) for each job; one query per
    rollup level in use."""
    by_level: dict[int, list[int]] = {}
    for job_id, n in steps_per_host.items():
        if n > 0:
            by_level.setdefault(trend_level(n), []).append(job_id)
    out: dict[int, list[float]] = {}
    for level, ids in by_level.items():
        q = (
            select(StepRollup.job_id, func.sum(StepRollup.sum_duration) / func.sum(StepRollup.n))
            .where(
                StepRollup.level == level, StepRollup.job_id.in_(ids), StepRollup.host_index < FULL_STEP_HOSTS
            )
            .group_by(StepRollup.job_id, StepRollup.bucket)
            .order_by(StepRollup.job_id, StepRollup.bucket)
        )
        for job_id, mean in session.execute(q):
            out.setdefault(job_id, []).append(float(mean))
    return out


def _last_errors(session: Session, ids: list[int]) -> dict[int, dict]:
    """The first card of each job's latest error event (or an 'error' badge with no card)."""
    if not ids:
        return {}
    last = (
        select(func.max(Event.id))
        .where(Event.job_id.in_(ids), Event.kind == Kind.ERROR)
        .group_by(Event.job_id)
        .scalar_subquery()
    )
    out = {}
    for job_id, data in session.execute(select(Event.job_id, Event.data).where(Event.id.in_(last))):
        cards = (data or {}).get("cards") or []
        card = cards[0] if cards and isinstance(cards[0], dict) else {}
        out[job_id] = {"category": card.get("category", "unknown"), "title": card.get("title")}
    return out


def _projects(session: Session, principal: Principal) -> list[str]:
    q = select(Project.name).where(Project.id.in_(select(Job.project_id).distinct())).order_by(Project.name)
    q = readable(q, principal, Project.id)
    return list(session.scalars(q))


def sparkline_points(values: list[float], width: float = 120, height: float = 24) -> str:
    """SVG polyline points for ``values`` scaled into the box (the overview's trend column).

    >>> sparkline_points([1.0, 2.0, 1.0], width=10, height=10)
    '0.0,9.0 5.0,1.0 10.0,9.0'
    """
    if not values:
        return ""
    lo, hi = min(values), max(values)
    spread = (hi - lo) or 1.0
    step = width / max(1, len(values) - 1)
    pad = 1.0
    return " ".join(
        f"{i * step:.1f},{pad + (height - 2 * pad) * (1 - (v - lo) / spread):.1f}"
        for i, v in enumerate(values)
    )
