"""What the jobs API returns. Times are UNIX seconds."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class HostOut(BaseModel):
    host_index: int
    hostname: str
    started_at: float
    last_seen_at: float
    ended_at: float | None
    exit_code: int | None
    exit_signal: str | None
    steps: int
    last_step: int | None
    last_step_at: float | None
    step_time_p50: float | None
    attrs: dict[str, Any] = {}


class JobOut(BaseModel):
    id: int
    name: str
    project: str
    run_id: str
    status: str
    hosts: int
    steps: int
    last_step: int | None
    last_step_at: float | None
    step_time_p50: float | None
    input_wait_p50: float | None
    errors: int
    started_at: float
    ended_at: float | None
    last_seen_at: float
    exit_code: int | None
    exit_signal: str | None
    url: str


class JobDetail(JobOut):
    host_list: list[HostOut]
    attrs: dict[str, Any] = {}
    dropped_events: int = 0


class JobList(BaseModel):
    jobs: list[JobOut]
    total: int
    limit: int
    offset: int


class EventOut(BaseModel):
    id: int
    host_index: int
    ts: float
    kind: str
    message: str
    data: dict[str, Any] | None


class EventList(BaseModel):
    events: list[EventOut]


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
