"""The overview and the job page, and their JSON twins: every page answers ``?format=json`` with
the very data it renders."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from tpuwatch.server.bounds import MAX_ID, HostQ
from tpuwatch.server.dashboard import chartdata, charts, overview, page
from tpuwatch.server.dashboard.schemas import JobPage, Overview
from tpuwatch.server.deps import JobDep, PageJobDep, ReaderDep, SessionDep, SettingsDep, ViewerDep
from tpuwatch.server.device.service import page_context as device_context
from tpuwatch.server.jobs.routes import NameQ, ProjectQ, StatusQ
from tpuwatch.server.logs.service import tail
from tpuwatch.server.slice.page import page_context
from tpuwatch.server.web import FormatQ, json_twin, render

api = APIRouter(prefix="/api/v1", tags=["dashboard"])
ChartGroupQ = Annotated[str, Query(pattern="^[a-z_]{1,32}$")]
pages = APIRouter(tags=["pages"])


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


@api.get("/jobs/{job_id}/page", response_model=JobPage)
def get_job_page(job: JobDep, session: SessionDep, settings: SettingsDep):
    """What the job page shows: hosts (straggler marked), cards, timeline and chart data."""
    return page.job_page(session, job, settings)


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


@api.get("/jobs/{job_id}/charts")
def get_job_charts(job: JobDep, session: SessionDep, settings: SettingsDep, group: ChartGroupQ = "steps"):
    """A group of the job page's charts as Plotly figures (``{key: figure}``): what the page
    fetches to draw them (steps, device, goodput, training, slice, clock)."""
    figures = chartdata.group_figures(session, job, settings, group)
    return Response(charts.to_json(figures), media_type="application/json")


@pages.get("/jobs/{job_id}")
def job_page(
    request: Request,
    job: PageJobDep,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    format: FormatQ = "html",
    log_host: HostQ = None,
    log_line: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
):
    data = page.job_page(session, job, settings, series=format == "json")
    if format == "json":
        return json_twin(data)
    # The log opens where it matters: the line a link asked for, else a stopped job's error line.
    card = (data.failure or {}).get("card") or {}
    if log_line is None and card.get("log_line"):
        log_host, log_line = card.get("host_index"), card["log_line"]
    around = log_line if log_line and log_host is not None else None
    log = tail(session, job.id, host=log_host if around else None, around=around)
    context = {
        "p": data,
        "p_log": log,
        "around": around,
        "around_host": log_host if around else None,
        **page_context(session, job, data.job.hosts),
        **device_context(session, job, settings),
    }
    return render(request, "jobs/detail.html", context, principal=principal)


@pages.get("/fragments/jobs/{job_id}/live")
def job_live_fragment(
    request: Request, job: PageJobDep, principal: ViewerDep, session: SessionDep, settings: SettingsDep
):
    """The job's status, step count and figures alone: what the job page polls to stay current."""
    return render(
        request, "jobs/_live.html", {"p": page.job_live(session, job, settings)}, principal=principal
    )
