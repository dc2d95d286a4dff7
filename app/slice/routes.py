"""The slice's JSON (matrices and bands, hosts paged, which host) and the hosts-table fragment the
job page pages through."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request

from tpuwatch.server.bounds import StepQ
from tpuwatch.server.deps import JobDep, PageJobDep, SessionDep, ViewerDep
from tpuwatch.server.slice.page import which_host
from tpuwatch.server.slice.schemas import HostPage, SliceData, WhichHost
from tpuwatch.server.slice.service import COLUMNS, host_page, slice_data
from tpuwatch.server.web import render

api = APIRouter(prefix="/api/v1", tags=["slice"])
pages = APIRouter(tags=["pages"])

SortQ = Annotated[
    Literal["step_time", "input_wait", "vs_median", "last_step", "last_seen_at", "host_index"], Query()
]
OrderQ = Annotated[Literal["asc", "desc"], Query()]
PageQ = Annotated[int, Query(ge=1, le=100_000)]
PerPageQ = Annotated[int, Query(ge=1, le=500)]


@api.get("/jobs/{job_id}/slice", response_model=SliceData)
def get_slice(
    job: JobDep,
    session: SessionDep,
    columns: Annotated[int, Query(ge=4, le=200)] = COLUMNS,
    start: StepQ = None,
    end: StepQ = None,
):
    """Step time and input wait per host and step bucket, p50/p90/max over hosts per bucket, and
    the latest HBM share and duty cycle of every chip."""
    return slice_data(session, job, columns=columns, start=start, end=end)


@api.get("/jobs/{job_id}/hosts", response_model=HostPage)
def get_hosts(
    job: JobDep,
    session: SessionDep,
    sort: SortQ = "step_time",
    order: OrderQ = "desc",
    page: PageQ = 1,
    per_page: PerPageQ = 25,
):
    """The job's hosts, one page, sorted server-side (slowest first by default)."""
    return host_page(session, job, sort=sort, order=order, page=page, per_page=per_page)


@api.get("/jobs/{job_id}/which-host", response_model=WhichHost)
def get_which_host(job: JobDep, session: SessionDep):
    """The hosts a stall started on (while the job is stopped) and the slowest hosts."""
    return which_host(session, job)


@pages.get("/jobs/{job_id}/fragments/hosts")
def hosts_fragment(
    request: Request,
    job: PageJobDep,
    principal: ViewerDep,
    session: SessionDep,
    sort: SortQ = "step_time",
    order: OrderQ = "desc",
    page: PageQ = 1,
    per_page: PerPageQ = 25,
):
    """The slice's hosts table alone: what the job page fetches to page and sort it."""
    data = host_page(session, job, sort=sort, order=order, page=page, per_page=per_page)
    return render(request, "jobs/_slice_hosts.html", {"hp": data, "job_id": job.id}, principal=principal)
