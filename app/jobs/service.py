"""Reading jobs: lists, one job with its hosts, and its events (chart series: ``series.py``)."""

from __future__ import annotations

import time

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal, readable
from tpuwatch.server.jobs.causes import likely_cause
from tpuwatch.server.jobs.figures import Figures, figures_for
from tpuwatch.server.jobs.label import run_label
from tpuwatch.server.jobs.schemas import (
    EventList,
    EventOut,
    HostOut,
    JobDetail,
    JobList,
    JobOut,
)
from tpuwatch.server.jobs.status import effective_status, might_be
from tpuwatch.server.models import Event, Job, JobHost, Project
from tpuwatch.server.settings import Settings

# Trouble first on the overview.
STATUS_ORDER = {"stalled": 0, "lost": 1, "failed": 2, "diverged": 3, "running": 4, "succeeded": 5}


def _job_out(job: Job, project: str, hosts: int, status: str, fig: Figures) -> dict:
    """A job as the API and the pages list it; every figure is ``jobs/figures.py``'s."""
    return dict(
        id=job.id,
        name=job.name,
        project=project,
        run_id=job.run_id,
        status=status,
        hosts=hosts,
        steps=fig.steps,
        host_steps=job.steps,
        last_step=job.last_step,
        last_step_at=job.last_step_at,
        step_time_p50=fig.step_time_p50,
        step_time_p90=fig.step_time_p90,
        input_wait_p50=fig.input_wait_p50,
        input_share=fig.input_share,
        steps_per_s=fig.steps_per_s,
        mfu=fig.mfu,
        mfu_warning=fig.mfu_warning,
        hbm_peak_share=fig.hbm_share,
        errors=job.errors,
        started_at=job.started_at,
        ended_at=job.ended_at,
        last_seen_at=job.last_seen_at,
        exit_code=job.exit_code,
        exit_signal=job.exit_signal,
        url=f"/jobs/{job.id}",
        label=run_label(job.attrs),
    )


def list_jobs(
    session: Session,
    principal: Principal,
    settings: Settings,
    *,
    limit: int = 200,
    offset: int = 0,
    status: str | None = None,
    name: str | None = None,
    project: str | None = None,
) -> JobList:
    """Jobs the principal may see, newest first; ``status`` filters on the effective status.

    Only the page's jobs are read whole (and their hosts counted): a server with years of history
    answers the first page of a team's overview in the time a handful of jobs take."""
    q = (
        select(Job, Project.name)
        .join(Project, Project.id == Job.project_id)
        .order_by(Job.started_at.desc(), Job.id.desc())
    )
    q = readable(q, principal, Job.project_id)
    if project:
        q = q.where(Project.name == project)
    if name:
        q = q.where(Job.name.contains(name, autoescape=True))
    now = time.time()
    if status:
        rows = [
            (job, proj, effective_status(job, now, settings))
            for job, proj in session.execute(q.where(might_be(status, now, settings)))
        ]
        rows = [r for r in rows if r[2] == status]
        total, page = len(rows), rows[offset : offset + limit]
    else:
        found = session.execute(q.add_columns(func.count().over()).limit(limit).offset(offset)).all()
        page = [(job, proj, effective_status(job, now, settings)) for job, proj, _ in found]
        total = found[0][2] if found else 0
        if not found and offset:
            total = session.scalar(select(func.count()).select_from(q.order_by(None).subquery())) or 0
    ids = [job.id for job, _, _ in page]
    counts: dict[int, tuple[int, int]] = {}
    if ids:
        hosts = select(JobHost.job_id, func.max(JobHost.steps), func.count()).where(JobHost.job_id.in_(ids))
        counts = {jid: (int(k or 0), int(n)) for jid, k, n in session.execute(hosts.group_by(JobHost.job_id))}
    figs = figures_for(session, [r[0] for r in page], {r[0].id: r[2] for r in page}, now, counts=counts)
    jobs = [
        JobOut(**_job_out(job, proj, counts.get(job.id, (0, 0))[1], st, figs[job.id]))
        for job, proj, st in page
    ]
    return JobList(jobs=jobs, total=total, limit=limit, offset=offset)


def job_detail(session: Session, job: Job, settings: Settings) -> JobDetail:
    return detail_and_figures(session, job, settings)[0]


def detail_and_figures(session: Session, job: Job, settings: Settings) -> tuple[JobDetail, Figures]:
    """One job with its hosts, and the figures its fields came from (for pages that show more)."""
    hosts = session.scalars(
        select(JobHost).where(JobHost.job_id == job.id).order_by(JobHost.host_index)
    ).all()
    project = session.scalar(select(Project.name).where(Project.id == job.project_id))
    now = time.time()
    status = effective_status(job, now, settings)
    fig = figures_for(session, [job], {job.id: status}, now, hosts_too=True)[job.id]
    base = _job_out(job, project, len(hosts), status, fig)
    host_list = [HostOut.model_validate(h, from_attributes=True) for h in hosts]
    for h in host_list:  # each host's median over the same window as the job's (not its last batch)
        h.step_time_p50 = fig.host_p50.get(h.host_index, h.step_time_p50)
    detail = JobDetail(
        **base,
        host_list=host_list,
        attrs=job.attrs or {},
        dropped_events=job.dropped_events,
        conflicting_batches=job.conflicting_batches,
        likely_cause=likely_cause(session, job, status=base["status"]),
    )
    return detail, fig


def job_events(session: Session, job: Job, kinds: list[str] | None = None, limit: int = 500) -> EventList:
    q = select(Event).where(Event.job_id == job.id).order_by(Event.ts, Event.id).limit(limit)
    if kinds:
        q = q.where(Event.kind.in_(kinds))
    return EventList(events=[EventOut.model_validate(e, from_attributes=True) for e in session.scalars(q)])
