"""``GET /api/v1/jobs/{id}/metrics?name=``: a job's metric samples per host and chip."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from tpuwatch.server.bounds import ChipQ, HostQ, StepQ, TimeQ
from tpuwatch.server.deps import JobDep, SessionDep
from tpuwatch.server.metrics.schemas import MetricList, TrainingSeries
from tpuwatch.server.metrics.service import metric_series
from tpuwatch.server.metrics.training import training_series

api = APIRouter(prefix="/api/v1", tags=["metrics"])


@api.get("/jobs/{job_id}/metrics", response_model=MetricList)
def get_metrics(
    job: JobDep,
    session: SessionDep,
    name: Annotated[str | None, Query(max_length=100)] = None,
    host: HostQ = None,
    chip: ChipQ = None,
    since: TimeQ = None,
    limit: Annotated[int, Query(ge=1, le=100000)] = 20000,
):
    """Samples of ``name`` (e.g. ``tpu.hbm.used_bytes``) per (host, chip); without ``name``, the
    metric names this job has."""
    return metric_series(session, job, name=name, host=host, chip=chip, since=since, limit=limit)


@api.get("/jobs/{job_id}/training", response_model=TrainingSeries)
def get_training(
    job: JobDep,
    session: SessionDep,
    points: Annotated[int, Query(ge=10, le=20000)] = 1000,
    since_step: StepQ = None,
):
    """Training metrics (loss first, a Keras ``val_`` twin on its metric's chart, grouped by
    ``section/`` prefix), each line downsampled to at most ``points`` points."""
    return training_series(session, job.id, points=points, since_step=since_step)
