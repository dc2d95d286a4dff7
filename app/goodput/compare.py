"""Two to four runs side by side: step-time distributions, goodput breakdowns, MFU, and the
attributes that differ (batch size, replicas, accelerator, code version, ...)."""

from __future__ import annotations

import time

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal, visible
from tpuwatch.server.errors import Invalid
from tpuwatch.server.goodput.schemas import JobGoodput
from tpuwatch.server.goodput.service import job_goodput
from tpuwatch.server.models import Event, Job, JobHost, Step
from tpuwatch.server.settings import Settings
from tpuwatch.wire import Kind

MIN_RUNS, MAX_RUNS = 2, 4
SAMPLE = 2000  # recent steps per run in the distribution
ATTRIBUTES = (
    ("global_batch_size", "batch size"),
    ("replicas", "replicas"),
    ("accelerator_type", "accelerator"),
    ("hosts", "hosts"),
    ("code_version", "code version"),
    ("framework", "framework"),
    ("steps_per_execution", "steps per execution"),
    ("parameters", "parameters"),
)


class CompareRun(BaseModel):
    job_id: int
    label: str
    name: str
    status: str
    url: str
    goodput: JobGoodput
    step_times: list[float]
    attributes: dict[str, str | int | float | None]


class Comparison(BaseModel):
    runs: list[CompareRun]
    differences: list[str]  # attribute keys whose values differ
    labels: dict[str, str]  # attribute key -> what to call it


def _attributes(session: Session, job: Job, goodput: JobGoodput) -> dict:
    info: dict = {}
    for data in session.scalars(
        select(Event.data).where(Event.job_id == job.id, Event.kind == Kind.MODEL_INFO).order_by(Event.ts)
    ):
        if isinstance(data, dict):
            info.update({k: v for k, v in data.items() if isinstance(v, (str, int, float)) or v is None})
    hosts = session.execute(select(JobHost.attrs).where(JobHost.job_id == job.id)).scalars().all()
    out = {key: info.get(key) for key, _ in ATTRIBUTES}
    out["hosts"] = len(hosts)
    for attrs in hosts:
        attrs = attrs or {}
        out["code_version"] = out["code_version"] or attrs.get("code_version")
        ident = attrs.get("identity") if isinstance(attrs.get("identity"), dict) else {}
        out["accelerator_type"] = out["accelerator_type"] or ident.get("accelerator_type")
    out["accelerator_type"] = out["accelerator_type"] or goodput.mfu.accelerator_type or None
    return out


def _step_times(session: Session, job: Job, host: int | None) -> list[float]:
    rows = session.scalars(
        select(Step.duration)
        .where(Step.job_id == job.id, Step.host_index == (host or 0))
        .order_by(Step.step.desc())
        .limit(SAMPLE)
    ).all()
    return list(reversed(rows))


def compare(
    session: Session, principal: Principal, job_ids: list[int], settings: Settings, now: float | None = None
) -> Comparison:
    """The comparison of ``job_ids`` (2 to 4 jobs the principal may see)."""
    now = time.time() if now is None else now
    ids = list(dict.fromkeys(job_ids))
    if not MIN_RUNS <= len(ids) <= MAX_RUNS:
        raise Invalid(f"compare {MIN_RUNS} to {MAX_RUNS} different jobs (got {len(ids)})")
    runs = []
    for job_id in ids:
        job = visible(principal, session.get(Job, job_id), "job", job_id)
        g = job_goodput(session, job, settings, now)
        host = session.scalar(
            select(JobHost.host_index).where(JobHost.job_id == job.id).order_by(JobHost.host_index).limit(1)
        )
        runs.append(
            CompareRun(
                job_id=job.id,
                label=f"{job.name} #{job.id}",
                name=job.name,
                status=g.outcome,
                url=f"/jobs/{job.id}",
                goodput=g,
                step_times=_step_times(session, job, host),
                attributes=_attributes(session, job, g),
            )
        )
    keys = [k for k, _ in ATTRIBUTES]
    differences = [k for k in keys if len({repr(r.attributes.get(k)) for r in runs}) > 1]
    return Comparison(runs=runs, differences=differences, labels=dict(ATTRIBUTES))
