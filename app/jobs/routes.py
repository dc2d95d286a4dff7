"""Jobs as records: the list, one job with its hosts, and its events."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tpuwatch.server.bounds import OffsetQ
from tpuwatch.server.deps import JobDep, ReaderDep, SessionDep, SettingsDep
from tpuwatch.server.jobs import service
from tpuwatch.server.jobs.schemas import EventList, JobDetail, JobList
from tpuwatch.server.jobs.status import STATUSES

api = APIRouter(prefix="/api/v1", tags=["jobs"])

StatusQ = Annotated[str | None, Query(pattern="^(" + "|".join(STATUSES) + ")?$")]
NameQ = Annotated[str | None, Query(max_length=200)]
ProjectQ = Annotated[str | None, Query(max_length=100)]


@api.get("/jobs", response_model=JobList)
def list_jobs(
    principal: ReaderDep,
    session: SessionDep,
    settings: SettingsDep,
    status: StatusQ = None,
    name: NameQ = None,
    project: ProjectQ = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    offset: OffsetQ = 0,
):
    """The jobs of the token's project, newest first, finished ones included."""
    return service.list_jobs(
        session,
        principal,
        settings,
        limit=limit,
        offset=offset,
        status=status or None,
        name=name,
        project=project,
    )


@api.get("/jobs/{job_id}", response_model=JobDetail)
def get_job(job: JobDep, session: SessionDep, settings: SettingsDep):
    return service.job_detail(session, job, settings)


@api.get("/jobs/{job_id}/events", response_model=EventList)
def get_events(
    job: JobDep,
    session: SessionDep,
    kind: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
):
    return service.job_events(session, job, kinds=kind, limit=limit)
