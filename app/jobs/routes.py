"""Jobs: the JSON API and the pages built from the same service calls."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from app.deps import JobDep, PageJobDep, ReaderDep, SessionDep, SettingsDep, ViewerDep
from app.jobs import charts, service
from app.jobs.schemas import EventList, JobDetail, JobList, StepSeries
from app.jobs.status import STATUSES
from app.web import render

api = APIRouter(prefix="/api/v1", tags=["jobs"])
pages = APIRouter(tags=["pages"])

StatusQ = Annotated[str | None, Query(pattern="^(" + "|".join(STATUSES) + ")$")]


@api.get("/jobs", response_model=JobList)
def list_jobs(
    principal: ReaderDep,
    session: SessionDep,
    settings: SettingsDep,
    status: StatusQ = None,
    name: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    offset: Annotated[int, Query(ge=0)] = 0,
):
    """The jobs of the token's project, newest first, finished ones included."""
    return service.list_jobs(
        session, principal, settings, limit=limit, offset=offset, status=status, name=name
    )


@api.get("/jobs/{job_id}", response_model=JobDetail)
def get_job(job: JobDep, session: SessionDep, settings: SettingsDep):
    return service.job_detail(session, job, settings)


@api.get("/jobs/{job_id}/steps", response_model=StepSeries)
def get_steps(
    job: JobDep,
    session: SessionDep,
    points: Annotated[int, Query(ge=10, le=20000)] = 2000,
    start: Annotated[float | None, Query()] = None,
    end: Annotated[float | None, Query()] = None,
    host: Annotated[int | None, Query(ge=0)] = None,
):
    """Step time and input wait per host, downsampled (MinMaxLTTB) to at most ``points`` each."""
    return service.step_series(session, job, points=points, start=start, end=end, host=host)


@api.get("/jobs/{job_id}/events", response_model=EventList)
def get_events(
    job: JobDep,
    session: SessionDep,
    kind: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
):
    return service.job_events(session, job, kinds=kind, limit=limit)


@pages.get("/")
def overview(
    request: Request,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    status: StatusQ = None,
    name: Annotated[str | None, Query(max_length=200)] = None,
):
    jobs = service.list_jobs(
        session, principal, settings, status=status, name=name, limit=settings.jobs_page_size
    )
    return render(
        request, "jobs/index.html", {"jobs": jobs, "status": status, "name": name or ""}, principal=principal
    )


@pages.get("/jobs/{job_id}")
def job_page(
    request: Request, job: PageJobDep, principal: ViewerDep, session: SessionDep, settings: SettingsDep
):
    detail = service.job_detail(session, job, settings)
    figures = charts.step_figures(service.step_series(session, job))
    events = service.job_events(session, job)
    return render(
        request,
        "jobs/detail.html",
        {"job": detail, "figures": figures, "events": events.events},
        principal=principal,
    )
