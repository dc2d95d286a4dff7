"""Jobs: the JSON API and the pages built from the same service calls.

Every page answers ``?format=json`` with the very data it renders (its JSON twin)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from app.deps import JobDep, PageJobDep, ReaderDep, SessionDep, SettingsDep, ViewerDep
from app.jobs import charts, overview, page, service
from app.jobs.schemas import EventList, JobDetail, JobList, JobPage, Overview, StepSeries
from app.jobs.series import step_series
from app.jobs.status import STATUSES
from app.web import FormatQ, json_twin, render

api = APIRouter(prefix="/api/v1", tags=["jobs"])
pages = APIRouter(tags=["pages"])

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
    offset: Annotated[int, Query(ge=0)] = 0,
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


@api.get("/overview", response_model=Overview)
def get_overview(
    principal: ReaderDep,
    session: SessionDep,
    settings: SettingsDep,
    status: StatusQ = None,
    project: ProjectQ = None,
    name: NameQ = None,
):
    """What the overview page shows: jobs trouble first, with steps/s, trend, input and HBM shares."""
    return overview.overview(session, principal, settings, status=status or None, project=project, name=name)


@api.get("/jobs/{job_id}", response_model=JobDetail)
def get_job(job: JobDep, session: SessionDep, settings: SettingsDep):
    return service.job_detail(session, job, settings)


@api.get("/jobs/{job_id}/page", response_model=JobPage)
def get_job_page(job: JobDep, session: SessionDep, settings: SettingsDep):
    """What the job page shows: hosts (straggler marked), cards, timeline and chart data."""
    return page.job_page(session, job, settings)


@api.get("/jobs/{job_id}/steps", response_model=StepSeries)
def get_steps(
    job: JobDep,
    session: SessionDep,
    points: Annotated[int, Query(ge=10, le=20000)] = 2000,
    start: Annotated[float | None, Query()] = None,
    end: Annotated[float | None, Query()] = None,
    host: Annotated[int | None, Query(ge=0)] = None,
):
    """Step time and input wait per host, at most ``points`` each (MinMaxLTTB; rollups for wide
    ranges). ``start``/``end`` are step numbers: charts re-fetch their window on zoom."""
    return step_series(session, job, points=points, start=start, end=end, host=host)


@api.get("/jobs/{job_id}/events", response_model=EventList)
def get_events(
    job: JobDep,
    session: SessionDep,
    kind: Annotated[list[str] | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
):
    return service.job_events(session, job, kinds=kind, limit=limit)


def _overview_context(data: Overview) -> dict:
    return {"ov": data, "sparkline": overview.sparkline_points}


@pages.get("/")
def overview_page(
    request: Request,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    status: StatusQ = None,
    project: ProjectQ = None,
    name: NameQ = None,
    format: FormatQ = "html",
):
    data = overview.overview(session, principal, settings, status=status or None, project=project, name=name)
    if format == "json":
        return json_twin(data)
    return render(request, "jobs/index.html", _overview_context(data), principal=principal)


@pages.get("/fragments/jobs")
def overview_fragment(
    request: Request,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    status: StatusQ = None,
    project: ProjectQ = None,
    name: NameQ = None,
):
    """The overview's table alone: what the page fetches every few seconds to refresh itself."""
    data = overview.overview(session, principal, settings, status=status or None, project=project, name=name)
    return render(request, "jobs/_table.html", _overview_context(data), principal=principal)


@pages.get("/jobs/{job_id}")
def job_page(
    request: Request,
    job: PageJobDep,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    format: FormatQ = "html",
):
    data = page.job_page(session, job, settings)
    if format == "json":
        return json_twin(data)
    figures = {**charts.step_figures(data.steps), **charts.device_figures(data.device)}
    return render(request, "jobs/detail.html", {"p": data, "figures": figures}, principal=principal)
