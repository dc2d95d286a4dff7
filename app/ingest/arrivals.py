"""The jobs and hosts a group's batches belong to: found together, the new ones inserted race-free."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from tpuwatch.server.db import insert_ignore
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.jobs.label import KEY as LABEL_KEY
from tpuwatch.server.jobs.label import label_attrs
from tpuwatch.server.models import Job, JobHost
from tpuwatch.server.series.thinning import Reference


def earliest(batch: Batch, now: float) -> float:
    """When the batch's run was first seen doing something (the agent's clock, capped at now)."""
    times = [now]
    if batch.steps:
        times.append(batch.steps[0][1] - batch.steps[0][2])
    times.extend(e[0] for e in batch.events[:50])
    return min(times)


def insert_job(session: Session, project_id: int, batch: Batch, now: float) -> int:
    """A new job's id; inserted race-free (another process may have inserted it meanwhile)."""
    values = dict(
        project_id=project_id,
        run_id=batch.run.run_id,
        name=batch.run.job,
        group_key=batch.run.group or batch.run.job,
        status="running",
        started_at=earliest(batch, now),
        last_seen_at=now,
        steps=0,
        errors=0,
        dropped_events=0,
        attrs={LABEL_KEY: label} if (label := label_attrs(batch.run.attrs)) else {},
    )
    insert_ignore(session, Job.__table__, values, ["project_id", "run_id"])
    return session.scalar(select(Job.id).where(Job.project_id == project_id, Job.run_id == batch.run.run_id))


# The known jobs among a group's (project, run) pairs, in one round trip: a team's group of batches
# spans dozens of jobs, and a query per job was a fifth of the writer's time in the 100-job fleet.
_JOB_ROWS = select(
    Job.id, Job.project_id, Job.run_id, Job.step_time_p50, Job.input_wait_p50, Job.last_step, Job.last_step_at
).where(
    Job.project_id.in_(bindparam("projects", expanding=True)),
    Job.run_id.in_(bindparam("runs", expanding=True)),
)


def upsert_jobs(session: Session, wanted: dict[tuple[int, str], Batch], now: float) -> dict[tuple, list]:
    """Each ``(project, run)``'s ``[job id, reference for thinning or None]``: the known jobs
    found together (their reference with them), the new ones inserted (no reference yet)."""
    found = session.connection().execute(
        _JOB_ROWS, {"projects": sorted({p for p, _ in wanted}), "runs": sorted({r for _, r in wanted})}
    )
    out: dict[tuple, list] = {}
    for row in found:
        if (row[1], row[2]) in wanted:
            out[(row[1], row[2])] = [row[0], Reference(*row[3:])]
    for key, batch in wanted.items():
        if key not in out:
            out[key] = [insert_job(session, key[0], batch, now), None]
    return out


def add_hosts(session: Session, arrivals: list[tuple[int, Batch]], now: float) -> None:
    """Insert the hosts of ``(job id, batch)`` not seen before: one query and one insert for the
    group, whatever the number of its jobs."""
    first: dict[tuple[int, int], Batch] = {}
    for job_id, batch in arrivals:
        first.setdefault((job_id, batch.run.host), batch)
    if not first:
        return
    jobs = sorted({j for j, _ in first})
    hosts = sorted({h for _, h in first})
    rows = session.execute(  # every job's rows with any of the hosts: those asked for count below
        select(JobHost.job_id, JobHost.host_index).where(
            JobHost.job_id.in_(jobs), JobHost.host_index.in_(hosts)
        )
    )
    known = {(job_id, host) for job_id, host in rows}
    new = [
        dict(
            job_id=job_id,
            host_index=host,
            hostname=str(b.run.attrs.get("hostname", ""))[:255],
            started_at=now,
            last_seen_at=now,
            exited=False,
            steps=0,
            attrs=b.run.attrs,
        )
        for (job_id, host), b in sorted(first.items())
        if (job_id, host) not in known
    ]
    if new:
        insert_ignore(session, JobHost.__table__, new, ["job_id", "host_index"])
