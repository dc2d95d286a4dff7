"""What a post-mortem holds; the page, the exported file and the JSON API share it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from tpuwatch.server.device.schemas import DeviceView
from tpuwatch.server.goodput.schemas import JobGoodput, MfuPoint, RunGoodput
from tpuwatch.server.jobs.schemas import JobDetail
from tpuwatch.server.metrics.schemas import TrainingSeries
from tpuwatch.server.series.schemas import StepSeries
from tpuwatch.server.slice.schemas import SliceData, WhichHost


class Phase(BaseModel):
    name: str  # start | compile | steady | last_step | failure
    ts: float | None
    duration: float | None = None  # seconds the phase lasted, when it has an end
    detail: str = ""


class LogLine(BaseModel):
    number: int  # the line's number in its host's live log (the card's line), 1-based
    text: str
    hit: bool = False  # the evidence line


class RunSummary(BaseModel):
    id: int
    name: str
    status: str
    steps: int  # training steps (jobs/figures.py)
    step_time_p50: float | None
    input_share: float | None = None
    mfu: float | None = None
    duration: float | None
    hosts: int
    started_at: float
    url: str


class LastStep(BaseModel):
    host_index: int
    step: int
    ts: float
    duration: float
    input_wait: float


class PostMortem(BaseModel):
    job: JobDetail
    phases: list[Phase]
    last_steps: list[LastStep]
    last_steps_series: StepSeries  # one line per host; empty for a slice, which has:
    last_steps_slice: SliceData | None = None  # host x step heatmap and bands over hosts
    loss: TrainingSeries | None = None  # the loss over the steps before the end
    hbm: dict[str, Any]  # device series over the minutes before the end
    error_card: dict[str, Any] | None
    other_cards: list[dict[str, Any]]
    log: list[LogLine]
    log_host: int | None = None
    archive_url: str | None = None  # a link a browser can open
    archive_location: str | None = None  # as the agent reported it (gs://...)
    previous: RunSummary | None = None
    this_run: RunSummary
    vs_previous: str | None = None  # "steps 15% faster than the last good run (7.1 ms vs 8.4 ms)"
    goodput: JobGoodput | None = None  # where the attempt's time went
    run_goodput: RunGoodput | None = None  # its training run, when relaunched
    mfu_points: list[MfuPoint] = []
    which_host: WhichHost | None = None  # a job of several hosts: which stopped first, which was slow
    device: DeviceView | None = None  # libtpu's runtime metrics before the end, the cores' state
    device_figures: dict[str, Any] = {}  # their charts over the last minutes (app/device/charts.py)
