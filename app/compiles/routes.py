"""Compilations per function: ``GET /api/v1/jobs/{id}/compiles`` (the job page's section shows the
same data)."""

from __future__ import annotations

from fastapi import APIRouter

from tpuwatch.server.compiles import service
from tpuwatch.server.compiles.schemas import JobCompiles
from tpuwatch.server.deps import JobDep, SessionDep

api = APIRouter(prefix="/api/v1", tags=["compiles"])


@api.get("/jobs/{job_id}/compiles", response_model=JobCompiles)
def get_job_compiles(job: JobDep, session: SessionDep):
    """What the job compiled: per function the count, the recompilations after its warm-up, the
    seconds spent and the cache hits; the functions recompiling; the latest compilations."""
    return service.job_compiles(session, job)
