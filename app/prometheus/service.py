"""What ``/metrics`` reports, read from the database at scrape time (nothing is kept in memory, so
every replica behind a load balancer answers the same)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal, readable
from tpuwatch.server.device.service import device_view
from tpuwatch.server.jobs.figures import figures_for
from tpuwatch.server.jobs.status import effective_status
from tpuwatch.server.models import Job, Metric, Project
from tpuwatch.server.settings import Settings
from tpuwatch.wire import MetricName

# Finished jobs stay visible this long, so an alert rule sees the failure before the series ends.
FINISHED_WINDOW_SECONDS = 6 * 3600
# Device samples older than this (relative to the job's last word) no longer describe it.
HBM_FRESH_SECONDS = 300
MAX_JOBS = 5000  # bounds the scrape's size and the series count
# Rounds read per job for the device series: the newest of each host (agents send one every 5 s);
# a scrape of a hundred 64-host jobs then reads some 25,000 rounds, not 77,000.
DEVICE_WINDOW_S = 20.0


@dataclass
class JobSample:
    job_id: int
    project: str
    name: str
    run_id: str
    status: str
    steps: int
    errors: int
    dropped_events: int
    conflicting_batches: int
    seconds_since_last_step: float | None
    step_time: float | None
    input_wait_ratio: float | None
    hbm_used_ratio: float | None
    steps_per_second: float | None = None
    mfu_ratio: float | None = None
    # libtpu's runtime metrics: (metric, stat, median over hosts, greatest host) (app/device)
    device: list[tuple[str, str, float, float]] = field(default_factory=list)


def job_samples(session: Session, principal: Principal, settings: Settings, now: float | None = None):
    """One sample per job the principal may see: running ones and those that ended lately."""
    now = time.time() if now is None else now
    query = (
        select(Job, Project.name)
        .join(Project, Project.id == Job.project_id)
        .where(or_(Job.ended_at.is_(None), Job.ended_at >= now - FINISHED_WINDOW_SECONDS))
        .order_by(Job.id.desc())
        .limit(MAX_JOBS)
    )
    query = readable(query, principal, Job.project_id)
    rows = session.execute(query).all()
    statuses = {job.id: effective_status(job, now, settings) for job, _ in rows}
    figs = figures_for(session, [job for job, _ in rows], statuses, now)
    samples = []
    for job, project in rows:
        fig = figs[job.id]
        since = None
        if job.last_step_at is not None:
            since = max(0.0, (job.ended_at or now) - job.last_step_at)
        samples.append(
            JobSample(
                job_id=job.id,
                project=project,
                name=job.name,
                run_id=job.run_id,
                status=statuses[job.id],
                steps=fig.steps,
                errors=job.errors,
                dropped_events=job.dropped_events,
                conflicting_batches=job.conflicting_batches,
                seconds_since_last_step=since,
                step_time=fig.step_time_p50,
                input_wait_ratio=fig.input_share,
                steps_per_second=fig.steps_per_s,
                mfu_ratio=fig.mfu,
                hbm_used_ratio=_hbm_ratio(session, job),
                device=_device(session, job),
            )
        )
    return samples


def _device(session: Session, job: Job) -> list[tuple[str, str, float, float]]:
    """The job's latest runtime metrics, from the same figures the job page shows."""
    if job.ended_at is not None and job.last_seen_at < time.time() - HBM_FRESH_SECONDS:
        return []
    view = device_view(session, job, window=DEVICE_WINDOW_S)
    return [(s.name, s.stat, s.p50, s.max) for s in view.series if s.p50 is not None and s.max is not None]


def _hbm_ratio(session: Session, job: Job) -> float | None:
    """The fullest chip's share of HBM in use, from the job's latest samples (None without any)."""
    rows = session.execute(
        select(Metric.host_index, Metric.chip, Metric.name, Metric.ts, Metric.value).where(
            Metric.job_id == job.id,
            Metric.name.in_((MetricName.HBM_USED, MetricName.HBM_TOTAL)),
            Metric.ts >= job.last_seen_at - HBM_FRESH_SECONDS,
        )
    ).all()
    latest: dict[tuple, tuple[float, float]] = {}
    for host, chip, name, ts, value in rows:
        kind = "used" if name == MetricName.HBM_USED else "total"
        key = (host, chip, kind)
        if value is not None and (key not in latest or ts > latest[key][0]):
            latest[key] = (ts, value)
    shares = [
        used / latest[(host, chip, "total")][1]
        for (host, chip, kind), (_, used) in latest.items()
        if kind == "used" and latest.get((host, chip, "total"), (0, 0))[1] > 0
    ]
    return max(shares) if shares else None
