"""The wire format of ``POST /api/v1/ingest``: one batch from one agent stream.

Steps, events and metrics are compact arrays, not objects: a batch of 20,000 steps stays small
and validates fast. ``(stream, seq, part)`` identifies a batch; redelivery stores nothing new.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

Finite = Annotated[float, Field(allow_inf_nan=False)]
# What fits the BIGINT / INTEGER columns: a larger number is a 422 here, not a driver error later.
Int64 = Annotated[int, Field(ge=0, le=2**63 - 1)]
Int32 = Annotated[int, Field(ge=0, le=2**31 - 1)]
Text200 = Annotated[str, Field(min_length=1, max_length=200)]


class RunInfo(BaseModel):
    model_config = ConfigDict(extra="ignore")

    run_id: Annotated[str, Field(min_length=1, max_length=128)]
    job: Text200
    host: Annotated[int, Field(ge=0, le=65535)] = 0
    attrs: dict[str, Any] = Field(default_factory=dict)


# [step, end time, duration, input wait]
StepRow = tuple[
    Int64,
    Finite,
    Annotated[float, Field(ge=0, allow_inf_nan=False)],
    Annotated[float, Field(ge=0, allow_inf_nan=False)],
]
# [time, kind, message, data]
EventRow = tuple[Finite, Annotated[str, Field(min_length=1, max_length=32)], str, dict[str, Any] | None]
# [time, name, chip, value]; a NaN value is kept (a NaN loss is news) and stored as NULL
MetricRow = tuple[Finite, Annotated[str, Field(min_length=1, max_length=100)], Int32 | None, float | None]


class Batch(BaseModel):
    model_config = ConfigDict(extra="ignore")

    v: int = 1
    stream: Annotated[str, Field(min_length=1, max_length=64)]
    seq: Int64
    part: Annotated[str, Field(max_length=32, pattern=r"^[01]*$")] = ""
    run: RunInfo
    sent_at: float | None = None
    steps: list[StepRow] = Field(default_factory=list)
    events: list[EventRow] = Field(default_factory=list)
    metrics: list[MetricRow] = Field(default_factory=list)
    dropped: Int64 = 0

    @property
    def size(self) -> int:
        return len(self.steps) + len(self.events) + len(self.metrics)


BatchAdapter = TypeAdapter(Batch)


class IngestResult(BaseModel):
    job_id: int
    stored: int = Field(description="events stored by this request (0 for a redelivered batch)")
    duplicate: bool = False
    detail: str = "stored"
