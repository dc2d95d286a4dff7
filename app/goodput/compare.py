"""Two to four runs side by side: their figures (steps, step time, input share, MFU: the job page's,
from ``jobs/figures.py``), step time and loss overlaid, step-time distributions, goodput
breakdowns, and the attributes that differ (batch size, replicas, accelerator, code version, ...)."""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal, visible
from tpuwatch.server.errors import Invalid
from tpuwatch.server.goodput.schemas import JobGoodput
from tpuwatch.server.goodput.service import job_goodput
from tpuwatch.server.jobs.figures import job_figures
from tpuwatch.server.jobs.status import effective_status
from tpuwatch.server.metrics.training import training_series
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
    figures: dict[str, Any]  # the job page's figures (jobs/figures.py)
    goodput: JobGoodput
    step_times: list[float]
    steps: list[int] = []  # the step number of each of step_times
    loss: dict[str, Any] | None = None  # {"name", "x" (steps), "y"}: the run's loss line
    attributes: dict[str, str | int | float | None]


def parse_ids(values: list[str]) -> list[int]:
    """Job ids from the compare form's boxes: blank boxes are ignored; anything else that is not
    a job id is a clear error, not a framework's 422 page.

    >>> parse_ids(["3", "", " 7 ", ""])
    [3, 7]
    """
    ids = []
    for v in values:
        v = v.strip()
        if not v:
            continue
        if not v.isdigit() or not 1 <= int(v) <= 2**63 - 1:
            raise Invalid(f"{v[:40]!r} is not a job id")
        ids.append(int(v))
    return ids


def _loss(session: Session, job: Job) -> dict | None:
    data = training_series(session, job.id, points=1000, only_loss=True)
    for chart in data.charts:
        for line in chart.lines:
            if chart.x_axis == "step" and line.x:
                return {"name": line.name, "x": line.x, "y": line.y}
    return None


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


def _step_times(session: Session, job: Job, host: int | None) -> tuple[list[int], list[float]]:
    rows = session.execute(
        select(Step.step, Step.duration)
        .where(Step.job_id == job.id, Step.host_index == (host or 0))
        .order_by(Step.step.desc())
        .limit(SAMPLE)
    ).all()[::-1]
    return [r[0] for r in rows], [r[1] for r in rows]


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
        status = effective_status(job, now, settings)
        steps, times = _step_times(session, job, host)
        runs.append(
            CompareRun(
                job_id=job.id,
                label=f"{job.name} #{job.id}",
                name=job.name,
                status=status,
                url=f"/jobs/{job.id}",
                figures=job_figures(session, job, status).as_dict(),
                goodput=g,
                step_times=times,
                steps=steps,
                loss=_loss(session, job),
                attributes=_attributes(session, job, g),
            )
        )
    keys = [k for k, _ in ATTRIBUTES]
    differences = [k for k in keys if len({repr(r.attributes.get(k)) for r in runs}) > 1]
    return Comparison(runs=runs, differences=differences, labels=dict(ATTRIBUTES))


FIGURE_ROWS = ("steps", "step_time_p50", "input_share", "mfu")


def same_rows(data: Comparison | None) -> set[str]:
    """The compare table's rows where every run shows the same (dimmed on the page: what differs
    stands out); figures count as the same within 1%."""
    if data is None:
        return set()
    out = {k for k in data.labels if k not in data.differences}
    for key in FIGURE_ROWS:
        values = [r.figures.get(key) for r in data.runs]
        if all(v is None for v in values):
            out.add(key)
        elif all(v is not None for v in values) and max(values) <= min(values) * 1.01:
            out.add(key)
    return out
