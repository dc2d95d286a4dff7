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


class LikelyCause(BaseModel):
    """What probably ended a failed or lost job when its output does not say (node state)."""

    cause: str  # preemption, terminated, repair, unhealthy, ...
    summary: str
    state: str | None = None
    health: str | None = None
    symptoms: list[str] = []
    event_id: int
    ts: float
    host_index: int


class JobDetail(JobOut):
    host_list: list[HostOut]
    attrs: dict[str, Any] = {}
    dropped_events: int = 0
    likely_cause: LikelyCause | None = None


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
    source: str = "raw"  # raw steps, or rollups for a wide view
    bucket_steps: int = 1  # steps each rollup bucket summarizes


class OverviewJob(JobOut):
    steps_per_s: float | None = None  # per host, from the recent median step time
    input_share: float | None = None  # input wait / step time over the whole run
    hbm_peak_share: float | None = None  # peak HBM use / capacity, fullest chip
    trend: list[float] = []  # mean step time per bucket, oldest first
    error_category: str | None = None
    error_title: str | None = None
    postmortem_url: str | None = None


class Overview(BaseModel):
    jobs: list[OverviewJob]
    total: int
    projects: list[str]
    status: str | None = None
    project: str | None = None
    name: str = ""
    generated_at: float


class HostRow(HostOut):
    straggler: bool = False
    slowdown: float | None = None  # this host's median step time / the median of hosts


class TimelineItem(BaseModel):
    ts: float
    kind: str
    host_index: int | None = None
    title: str
    detail: str = ""


class JobPage(BaseModel):
    """Everything the job page shows; ``/jobs/{id}?format=json`` returns it."""

    job: JobDetail
    hosts: list[HostRow]
    error_cards: list[dict[str, Any]]
    perf_cards: list[dict[str, Any]]
    timeline: list[TimelineItem]
    steps: StepSeries
    device: dict[str, Any]
    postmortem_url: str | None = None
