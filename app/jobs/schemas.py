"""What the jobs API returns. Times are UNIX seconds."""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator


def _stored_int(value: Any) -> int | None:
    """An exit code as stored: ingest types it now, but an older server stored what it was sent
    (SQLite keeps "oops" in an INTEGER column); a page shows no code rather than fail for everyone."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return int(value) if value == int(value) else None


def _stored_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


StoredInt = Annotated[int | None, BeforeValidator(_stored_int)]
StoredText = Annotated[str | None, BeforeValidator(_stored_text)]


class HostOut(BaseModel):
    host_index: int
    hostname: str
    started_at: float
    last_seen_at: float
    ended_at: float | None
    exit_code: StoredInt
    exit_signal: StoredText
    steps: int
    last_step: int | None
    last_step_at: float | None
    step_time_p50: float | None
    attrs: dict[str, Any] = {}


class RunLabel(BaseModel):
    """What tells this run apart from others of the same job (jobs/label.py)."""

    name: str | None = None  # the launch's --name
    commit: str | None = None  # short git sha of the training script's folder
    dirty: bool | None = None  # uncommitted changes to tracked files at launch
    config_digest: str | None = None  # 12 hex over the config files beside the script
    config_files: list[str] = []


class JobOut(BaseModel):
    id: int
    name: str
    project: str
    run_id: str
    status: str
    hosts: int
    # Figures (jobs/figures.py): the same window and formulas on every page, card and /metrics.
    steps: int  # training steps: the furthest host's count, never a sum over hosts
    host_steps: int = 0  # steps stored over all hosts together
    last_step: int | None
    last_step_at: float | None
    step_time_p50: float | None  # seconds, over the last 2,048 steps without the compile step
    step_time_p90: float | None = None
    input_wait_p50: float | None
    input_share: float | None = None  # input wait / (step time + input wait)
    steps_per_s: float | None = None  # per host, over the recent window; 0 when stalled or lost
    mfu: float | None = None  # model FLOPs / (wall time of a step x peak), input wait included
    mfu_warning: str | None = None  # above 100%: the peak or the FLOPs per step are wrong
    hbm_peak_share: float | None = None  # peak HBM use / capacity, fullest chip
    errors: int
    started_at: float
    ended_at: float | None
    last_seen_at: float
    exit_code: StoredInt
    exit_signal: StoredText
    url: str
    label: RunLabel | None = None


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
    conflicting_batches: int = 0
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
