"""The slice's wire shapes: what its API answers and its page draws."""

from __future__ import annotations

from pydantic import BaseModel, Field


class HostStat(BaseModel):
    """One host of a slice: where it is, how fast it recently stepped, and what held it."""

    host_index: int
    hostname: str = ""
    steps: int = 0
    last_step: int | None = None
    last_step_at: float | None = None
    last_seen_at: float | None = None
    exited: bool = False
    step_time: float | None = None  # mean seconds a step over the recent window
    input_wait: float | None = None  # mean input wait a step over the same window
    vs_median: float | None = None  # step_time over the median of all hosts
    bound: str | None = None  # "input" | "compute": what its step time goes to, when it is slow


class StoppedHost(BaseModel):
    host_index: int
    hostname: str = ""
    last_step: int | None = None
    last_step_at: float | None = None
    last_seen_at: float | None = None
    behind: int = 0  # steps short of the furthest host
    stack: str | None = None  # the stacks the agent captured on this host after its last step


class WhichHost(BaseModel):
    """Which host a stall or a slowdown comes from."""

    hosts: int = 0
    lead_step: int | None = None
    stopped_first: list[StoppedHost] = Field(default_factory=list)
    silent: list[int] = Field(default_factory=list)  # hosts whose heartbeat stopped too
    slowest: list[HostStat] = Field(default_factory=list)
    lines: list[str] = Field(default_factory=list)  # the same, in sentences


class HostPage(BaseModel):
    total: int
    page: int
    per_page: int
    sort: str
    order: str
    rows: list[HostStat]


class SliceData(BaseModel):
    """Host × step-bucket matrices (rows in ``hosts`` order, columns at ``steps``) and their bands."""

    job_id: int
    hosts: list[int]
    steps: list[int]  # first step of each column's bucket
    bucket_steps: int
    step_time: list[list[float | None]]  # mean step time per host and bucket
    input_wait: list[list[float | None]]
    bands: dict[str, list[float | None]]  # p50 / p90 / max over hosts, per column
    hbm: list[float] = Field(default_factory=list)  # latest HBM use per chip, as a share of its total
    duty: list[float] = Field(default_factory=list)  # latest duty cycle per chip, percent
