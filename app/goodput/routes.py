"""Goodput, MFU and comparison: the API and the pages (each page answers ``?format=json``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import Field

from tpuwatch.server.deps import JobDep, ReaderDep, SessionDep, SettingsDep, ViewerDep, WriterDep
from tpuwatch.server.goodput import charts, floors, service
from tpuwatch.server.goodput.compare import Comparison, compare
from tpuwatch.server.goodput.schemas import Floors, JobGoodput, MfuPoint, RunGoodput
from tpuwatch.server.web import FormatQ, json_twin, render

api = APIRouter(prefix="/api/v1", tags=["goodput"])
pages = APIRouter(tags=["pages"])
JobIdInt = Annotated[int, Field(ge=1, le=2**63 - 1)]  # a larger id is a 422, not a driver overflow
JobsQ = Annotated[list[JobIdInt], Query(description="2 to 4 job ids", max_length=4)]


@api.get("/jobs/{job_id}/goodput", response_model=JobGoodput)
def get_job_goodput(job: JobDep, session: SessionDep, settings: SettingsDep):
    """Where this attempt's wall time went: productive step time and badput by cause (seconds)."""
    return service.job_goodput(session, job, settings)


@api.get("/runs/{job_id}/goodput", response_model=RunGoodput)
def get_run_goodput(job: JobDep, session: SessionDep, settings: SettingsDep):
    """The training run that job ``job_id`` is an attempt of: every attempt, idle time between them."""
    return service.run_goodput(session, job, settings)


@api.get("/jobs/{job_id}/mfu", response_model=list[MfuPoint])
def get_job_mfu(job: JobDep, session: SessionDep, settings: SettingsDep):
    """MFU over time (empty without model FLOPs or a known peak)."""
    return service.job_mfu_series(session, job, settings)


@api.get("/compare", response_model=Comparison)
def get_compare(principal: ReaderDep, session: SessionDep, settings: SettingsDep, jobs: JobsQ):
    """Two to four jobs side by side: step times, goodput, MFU and the attributes that differ."""
    return compare(session, principal, jobs, settings)


@api.get("/goodput/floors", response_model=Floors)
def get_floors(principal: ReaderDep, session: SessionDep):
    """The project's goodput and MFU floors (an alert fires when a running job stays under one)."""
    return floors.get(session, principal)


@api.put("/goodput/floors", response_model=Floors)
def put_floors(principal: WriterDep, session: SessionDep, body: Floors):
    if not principal.can_manage:
        raise HTTPException(403, "changing floors needs a project token")
    return floors.put(session, principal, body)


@pages.get("/compare")
def compare_page(
    request: Request,
    principal: ViewerDep,
    session: SessionDep,
    settings: SettingsDep,
    jobs: Annotated[list[JobIdInt], Query(max_length=4)] = [],  # noqa: B006 - FastAPI only reads it
    format: FormatQ = "html",
):
    data = compare(session, principal, jobs, settings) if jobs else None
    if format == "json":
        return json_twin(data or {"runs": [], "differences": [], "labels": {}})
    figures = {}
    if data is not None:
        figures = {
            "steps": charts.to_json(charts.step_time_figure([(r.label, r.step_times) for r in data.runs])),
            "breakdown": charts.to_json(
                charts.breakdown_figure([(r.label, r.goodput.model_dump()) for r in data.runs], "Goodput")
            ),
        }
    return render(
        request, "goodput/compare.html", {"c": data, "figures": figures, "ids": jobs}, principal=principal
    )
