"""What the overview and the job page show (their JSON twins return these models)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from tpuwatch.server.compiles.schemas import JobCompiles
from tpuwatch.server.goodput.schemas import JobGoodput, MfuPoint, RunGoodput
from tpuwatch.server.jobs.schemas import HostOut, JobDetail, JobOut
from tpuwatch.server.metrics.schemas import TrainingSeries
from tpuwatch.server.series.schemas import StepSeries


class OverviewJob(JobOut):
    trend: list[float] = []  # mean step time per bucket, oldest first
    error_category: str | None = None
    error_title: str | None = None
    postmortem_url: str | None = None
    goodput: dict[str, Any] | None = None  # shares of the total per part (goodput/bars.py)


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
    count: int = 1  # repeated events folded into this one ("389 checkpoints")
    until: float | None = None  # the last of them


class JobPage(BaseModel):
    """Everything the job page shows; ``/jobs/{id}?format=json`` returns it."""

    job: JobDetail
    hosts: list[HostRow]
    flags: list[str] = []  # silent failures: "diverged", "ended early"
    figures: dict[str, Any] = {}  # derived figures (jobs/figures.py): what the page and cards quote
    error_cards: list[dict[str, Any]]
    failure: dict[str, Any] | None = None  # a stopped job's card the page opens on, and its title
    stacks: dict[str, Any] | None = None  # a stopped job's last captured stacks, main thread first
    config: dict[str, Any] = {}  # the run's own config values (mon.model_info, Keras)
    perf_cards: list[dict[str, Any]]
    timeline: list[TimelineItem]
    steps: StepSeries
    training: TrainingSeries | None = None  # loss and the other training metrics
    device: dict[str, Any]
    postmortem_url: str | None = None
    goodput: JobGoodput | None = None  # where this attempt's time went
    run_goodput: RunGoodput | None = None  # its training run, when relaunched
    mfu_points: list[MfuPoint] = []
    compiles: JobCompiles | None = None  # what the framework compiled (app/compiles)
