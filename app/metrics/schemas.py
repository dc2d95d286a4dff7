"""What the metrics API returns: a job's samples of one metric per host and chip."""

from __future__ import annotations

from pydantic import BaseModel


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
