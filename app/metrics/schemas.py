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


class TrainingLine(BaseModel):
    """One training metric of one host, downsampled; ``nonfinite`` holds the x of NaN/Inf values."""

    name: str  # as logged ("keras." dropped)
    metric: str  # as stored
    host: int
    x: list[float]
    y: list[float]
    nonfinite: list[float] = []


class TrainingChart(BaseModel):
    """Metrics drawn together: a name and its Keras ``val_`` twin, per host."""

    key: str  # the name without "keras." and "val_"
    section: str  # the prefix before "/" ("train", "eval"), "" for none
    x_axis: str  # "step", or "time" (UNIX seconds) when a line has samples without a step
    lines: list[TrainingLine]


class TrainingSeries(BaseModel):
    job_id: int
    points: int
    charts: list[TrainingChart]
