"""The post-mortem page, its self-contained HTML export, and its JSON twin."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from tpuwatch.server.deps import JobDep, PageJobDep, SessionDep, SettingsDep, ViewerDep
from tpuwatch.server.postmortem import export, service
from tpuwatch.server.postmortem.schemas import PostMortem
from tpuwatch.server.web import FormatQ, json_twin, render

api = APIRouter(prefix="/api/v1", tags=["postmortem"])
pages = APIRouter(tags=["pages"])


@api.get("/jobs/{job_id}/postmortem", response_model=PostMortem)
def get_postmortem(job: JobDep, session: SessionDep, settings: SettingsDep):
    """Phases, last steps, HBM before the end, the error card, the log around it, the archived
    log and the previous successful run of the same job name."""
    return service.postmortem(session, job, settings)


@pages.get("/jobs/{job_id}/postmortem")
def postmortem_page(
    request: Request,
    job: PageJobDep,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    format: FormatQ = "html",
):
    data = service.postmortem(session, job, settings)
    if format == "json":
        return json_twin(data)
    return render(request, "postmortem/page.html", export.context(data, inline=False), principal=principal)


@pages.get("/jobs/{job_id}/postmortem.html")
def postmortem_export(
    request: Request,
    job: PageJobDep,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    download: Annotated[bool, Query()] = False,
):
    """One HTML file holding everything (CSS, plotly.js, the figures): opens anywhere, offline."""
    data = service.postmortem(session, job, settings)
    html = request.app.state.templates.get_template("postmortem/page.html").render(
        {**export.context(data, inline=True), "principal": None, "request": request}
    )
    headers = export.headers(job.id, job.name, download)
    return HTMLResponse(html, headers=headers)
