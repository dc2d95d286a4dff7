"""Attempts of one training run: jobs of a project that share a group key (the agent's ``--group``,
else the job name), in start order. A run that succeeded is complete: the next job with that key
starts a new training run, so a name reused for a fresh run next week is not an attempt of this one.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.models import Job

MAX_ATTEMPTS = 200  # jobs of one group key looked at, newest first


def group_of(job: Job) -> str:
    return job.group_key or job.name


def split_runs(jobs: list[Job]) -> list[list[Job]]:
    """Jobs in start order, cut after each success."""
    runs: list[list[Job]] = []
    current: list[Job] = []
    for j in jobs:
        current.append(j)
        if j.status == "succeeded":
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def attempts_of(session: Session, job: Job) -> list[Job]:
    """The attempts of ``job``'s training run, ``job`` among them, oldest first."""
    key = group_of(job)
    newest_first = session.scalars(
        select(Job)
        .where(Job.project_id == job.project_id, Job.group_key == key)
        .order_by(Job.started_at.desc(), Job.id.desc())
        .limit(MAX_ATTEMPTS)
    ).all()
    jobs = sorted(newest_first, key=lambda j: (j.started_at, j.id))
    if job not in jobs:
        return [job]
    for run in split_runs(jobs):
        if job in run:
            return run
    return [job]
