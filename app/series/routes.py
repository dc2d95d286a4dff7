"""``GET /api/v1/jobs/{id}/steps``: step time and input wait per host, downsampled."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tpuwatch.server.bounds import HostQ, StepF
from tpuwatch.server.deps import JobDep, SessionDep
from tpuwatch.server.series.schemas import StepSeries
from tpuwatch.server.series.service import step_series

api = APIRouter(prefix="/api/v1", tags=["series"])


@api.get("/jobs/{job_id}/steps", response_model=StepSeries)
def get_steps(
    job: JobDep,
    session: SessionDep,
    points: Annotated[int, Query(ge=10, le=20000)] = 2000,
    start: StepF = None,
    end: StepF = None,
    host: HostQ = None,
):
    """Step time and input wait per host, at most ``points`` each (MinMaxLTTB; rollups for wide
    ranges). ``start``/``end`` are step numbers: charts re-fetch their window on zoom."""
    return step_series(session, job, points=points, start=start, end=end, host=host)
