"""The device's routes: its JSON (``GET /api/v1/jobs/{id}/device``), the job page's button that
asks a stalled job's hosts for their cores' state, and the same ask for API callers."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from tpuwatch.server.deps import JobDep, PageJobDep, ReaderDep, SessionDep, SettingsDep, ViewerDep
from tpuwatch.server.device import service
from tpuwatch.server.device.schemas import CoreView, DeviceView

api = APIRouter(prefix="/api/v1", tags=["device"])
pages = APIRouter(tags=["pages"])


@api.get("/jobs/{job_id}/device", response_model=DeviceView)
def get_device(job: JobDep, session: SessionDep, settings: SettingsDep):
    """Every runtime metric the job's hosts' libtpu served (latest per host, and over the slice),
    the cores' state read on the last ask, and the stragglers the device names."""
    return service.full_view(session, job, settings)


@api.post("/jobs/{job_id}/device/core-state", response_model=CoreView, status_code=202)
def ask_core_state(
    job: JobDep, principal: ReaderDep, session: SessionDep, settings: SettingsDep, request: Request
):
    """Ask every host of a stalled job to read its cores' state once (at most once a minute)."""
    return service.ask_cores(session, job, settings, request.app.state)


@pages.post("/jobs/{job_id}/core-state")
def ask_core_state_form(
    job: PageJobDep, principal: ViewerDep, session: SessionDep, settings: SettingsDep, request: Request
) -> RedirectResponse:
    service.ask_cores(session, job, settings, request.app.state)
    return RedirectResponse(f"/jobs/{job.id}#device", status_code=303)
