"""What the step-series API returns: per-host series of step time and input wait."""

from __future__ import annotations

from pydantic import BaseModel


class Series(BaseModel):
    host: int
    metric: str
    x: list[float]
    y: list[float | None]


class StepSeries(BaseModel):
    job_id: int
    points: int
    total_steps: int
    series: list[Series]
    source: str = "raw"  # raw steps, rollups for a wide view, or "mixed": raw for some hosts
    bucket_steps: int = 1  # steps each rollup bucket summarizes
