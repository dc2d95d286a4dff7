"""Goodput, MFU and comparison: the API and the pages (each page answers ``?format=json``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from pydantic import Field

from tpuwatch.server.deps import JobDep, ReaderDep, SessionDep, SettingsDep, ViewerDep, WriterDep
from tpuwatch.server.errors import DomainError
from tpuwatch.server.goodput import charts, floors, service
from tpuwatch.server.goodput.compare import Comparison, compare, parse_ids, same_rows
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
    # Text, not ints: the form's four boxes send blanks for the ones left empty.
    jobs: Annotated[list[Annotated[str, Field(max_length=40)]], Query(max_length=8)] = [],  # noqa: B006
    format: FormatQ = "html",
):
    data, error, ids = None, None, []
    try:
        ids = parse_ids(jobs)
        data = compare(session, principal, ids, settings) if ids else None
    except DomainError as exc:
        if format == "json":
            raise
        error = str(exc)
    if format == "json":
        return json_twin(data or {"runs": [], "differences": [], "labels": {}})
    figures = charts.compare_figures(data.runs) if data is not None else {}
    context = {"c": data, "figures": figures, "ids": ids, "error": error, "same": same_rows(data)}
    return render(request, "goodput/compare.html", context, principal=principal)
