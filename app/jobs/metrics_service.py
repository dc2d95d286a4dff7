"""Raw device and framework metric samples of a job (HBM, duty cycle, Keras loss, ...)."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import Job, Metric


class MetricSeries(BaseModel):
    host: int
    chip: int | None
    ts: list[float]
    value: list[float | None]


class MetricList(BaseModel):
    job_id: int
    name: str | None
    names: list[str]
    series: list[MetricSeries]
    truncated: bool = False


def metric_series(
    session: Session,
    job: Job,
    name: str | None = None,
    host: int | None = None,
    chip: int | None = None,
    since: float | None = None,
    limit: int = 20000,
) -> MetricList:
    """Every sample of metric ``name`` per (host, chip), oldest first, at most ``limit`` samples;
    without ``name``, only the names the job has."""
    names = sorted(session.scalars(select(Metric.name).where(Metric.job_id == job.id).distinct()))
    series: list[MetricSeries] = []
    truncated = False
    if name:
        q = select(Metric.host_index, Metric.chip, Metric.ts, Metric.value).where(
            Metric.job_id == job.id, Metric.name == name
        )
        if host is not None:
            q = q.where(Metric.host_index == host)
        if chip is not None:
            q = q.where(Metric.chip == chip)
        if since is not None:
            q = q.where(Metric.ts >= since)
        rows = session.execute(q.order_by(Metric.ts, Metric.id).limit(limit + 1)).all()
        truncated = len(rows) > limit
        groups: dict[tuple, MetricSeries] = {}
        for h, c, ts, value in rows[:limit]:
            s = groups.get((h, c))
            if s is None:
                s = groups[(h, c)] = MetricSeries(host=h, chip=c, ts=[], value=[])
            s.ts.append(ts)
            s.value.append(value)
        series = [groups[k] for k in sorted(groups, key=lambda k: (k[0], -1 if k[1] is None else k[1]))]
    return MetricList(job_id=job.id, name=name, names=names, series=series, truncated=truncated)
