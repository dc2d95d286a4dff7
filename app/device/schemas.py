"""The device section of the job page and ``GET /api/v1/jobs/{id}/device``: every runtime metric
the hosts' libtpu served, per host and over the slice, and what the cores' state and the device's
straggler evidence say."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SeriesFigure(BaseModel):
    series: str = Field(description="the metric's libtpu name, with |p50 ... for a distribution's statistic")
    name: str
    stat: str = Field(description="value (a gauge or counter), p50, p90, p99, p999 or mean")
    label: str
    unit: str
    known: bool = Field(description="False for a name this tpuwatch has no label for: stored and shown as is")
    hosts: dict[int, float] = Field(description="each host's latest value (mean over its chips)")
    chips: dict[int, dict[int, float]] = Field(
        default_factory=dict, description="host -> chip -> latest value (jobs of a few hosts)"
    )
    p50: float | None = None
    min: float | None = None
    max: float | None = None
    min_host: int | None = None
    max_host: int | None = None


class CoreGroup(BaseModel):
    hosts: list[int]
    place: str = Field(description="where these hosts' cores are, in words")
    program: str = ""
    launch: int | None = None
    hlo: str = ""
    queue_empty: bool = False
    stack: str | None = Field(None, description="the Python stack of the group's first host, innermost frame")


class CoreView(BaseModel):
    asked_at: float | None = None
    read_at: float | None = None
    hosts: int = 0
    groups: list[CoreGroup] = Field(default_factory=list, description="largest first")
    lines: list[str] = Field(default_factory=list, description="what the stall alert says")


class StragglerHost(BaseModel):
    host: int
    kind: str = Field(description="compute (its cores busiest) or input (its input wait longest)")
    busy: float | None = None
    busy_others: float | None = None
    input_wait: float | None = None
    input_wait_others: float | None = None
    collective_us: float | None = None
    collective_others_us: float | None = None
    since: float | None = None
    line: str = ""


class DeviceView(BaseModel):
    job_id: int
    at: float | None = Field(None, description="time of the newest round")
    hosts: int = 0
    series: list[SeriesFigure] = Field(default_factory=list)
    cores: CoreView | None = None
    stragglers: list[StragglerHost] = Field(default_factory=list)
