"""The wire format of ``POST /api/v1/ingest``: one batch from one agent stream.

Steps, events and metrics are compact arrays, not objects: a batch of 20,000 steps stays small
and validates fast. ``(stream, seq, part)`` identifies a batch; redelivery stores nothing new.

Every field is bounded here, where the batch enters, so that nothing downstream (the database, a
date filter, a page) meets a value it cannot hold: numbers fit their columns, texts have a length
and no NUL (PostgreSQL cannot store one), free-form JSON has a size, and times lie in a window
around the server's clock. The window comes from the settings through the validation context::

    BatchAdapter.validate_json(body, context={"window": TimeWindow.around(time.time(), settings)})
"""

from __future__ import annotations

import datetime as dt
import json
import math
from typing import Annotated, Any, NamedTuple

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationInfo,
    model_validator,
)

from tpuwatch import wire

Finite = Annotated[float, Field(allow_inf_nan=False)]
# What fits the BIGINT / INTEGER columns: a larger number is a 422 here, not a driver error later.
Int64 = Annotated[int, Field(ge=0, le=2**63 - 1)]
Int32 = Annotated[int, Field(ge=0, le=2**31 - 1)]
# A step number: a slice's range, a chart's axis and a browser's JSON all hold it exactly.
Step = Annotated[int, Field(ge=0, le=wire.MAX_STEP)]
NO_NUL = r"^[^\x00]*$"  # PostgreSQL text cannot hold U+0000; SQLite would, so refuse it on both


def _unix_time(ts: float) -> float:
    if not wire.MIN_TIME <= ts <= wire.MAX_TIME:
        raise ValueError(
            f"time {ts!r} is not UNIX seconds between 2000-01-01 and 2100-01-01: "
            "check the sending host's clock"
        )
    return ts


# The bounds sit in the JSON schema for clients and fuzzers; the check says what is wrong in words.
Time = Annotated[
    float,
    Field(allow_inf_nan=False, json_schema_extra={"minimum": wire.MIN_TIME, "maximum": wire.MAX_TIME}),
    AfterValidator(_unix_time),
]
# A duration under 1e-30 s is zero: no clock measures less, and the rollups keep extremes as
# PostgreSQL REAL (float4), which refuses a value that rounds to 0 there (2.9e-173: "underflow").
TINY_SECONDS = 1e-30


def _not_tiny(value: float) -> float:
    return 0.0 if value < TINY_SECONDS else value


Seconds = Annotated[
    float, Field(ge=0, le=wire.MAX_DURATION_S, allow_inf_nan=False), AfterValidator(_not_tiny)
]


def Text(max_length: int, min_length: int = 1):  # noqa: N802 - a type factory, read like a type
    return Annotated[str, Field(min_length=min_length, max_length=max_length, pattern=NO_NUL)]


def _clean(value: Any, what: str) -> Any:
    """``value`` with NaN and infinities spelled as JSON cannot carry them ("NaN", "Infinity": a NaN
    loss in an epoch's logs is news), or ValueError for a NUL, which no database here may store."""
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError(f"{what} holds a NUL character (U+0000), which cannot be stored")
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {_clean(k, what): _clean(v, what) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v, what) for v in value]
    return value


def bounded_json(limit: int, what: str):
    """Free-form JSON of at most ``limit`` bytes (compact), with no NUL."""

    def check(value: dict | None) -> dict | None:
        if value is None:
            return value
        value = _clean(value, what)
        size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
        if size > limit:
            raise ValueError(f"{what} is {size} bytes as JSON; the limit is {limit}: send less")
        return value

    return AfterValidator(check)


EventData = Annotated[dict[str, Any] | None, bounded_json(wire.MAX_DATA_BYTES, "event data")]
RunAttrs = Annotated[dict[str, Any], bounded_json(wire.MAX_ATTRS_BYTES, "run attrs")]


class RunInfo(BaseModel):
    model_config = ConfigDict(extra="ignore")

    run_id: Text(128)
    job: Text(200)
    host: Annotated[int, Field(ge=0, le=65535)] = 0
    group: Text(200) | None = None  # the training run this job is an attempt of
    attrs: RunAttrs = Field(default_factory=dict)


# [step, end time, duration, input wait]
StepRow = tuple[Step, Time, Seconds, Seconds]


def _typed_data(row: tuple) -> tuple:
    """The data fields the server reads have the type of their kind (wire.EVENT_DATA): an exit code
    "oops" is refused here, not met by every page that shows the job."""
    problem = wire.data_problem(row[1], row[3]) if row[3] else None
    if problem:
        raise ValueError(problem)
    return row


# [time, kind, message, data]
EventRow = Annotated[
    tuple[Time, Text(32), Text(wire.MAX_MESSAGE_CHARS, min_length=0), EventData], AfterValidator(_typed_data)
]
# [time, name, chip, value] or [time, name, chip, value, step] (training metrics: loss, lr, ...);
# a NaN value is kept (a NaN loss is news) and stored as NULL
MetricRow = (
    tuple[Time, Text(100), Int32 | None, float | None]
    | tuple[Time, Text(100), Int32 | None, float | None, Step | None]
)


# [time, line number, stream, text]: one line of the job's output (the live log)
LogRow = tuple[Time, Int64, Text(8), Text(wire.MAX_LOG_LINE_CHARS, min_length=0)]


class TimeWindow(NamedTuple):
    """The times a batch may carry: from ``earliest`` to ``latest`` (UNIX seconds)."""

    earliest: float
    latest: float

    @classmethod
    def around(cls, now: float, max_age_days: float, max_ahead_seconds: float) -> TimeWindow:
        return cls(
            max(wire.MIN_TIME, now - max_age_days * 86400), min(wire.MAX_TIME, now + max_ahead_seconds)
        )

    def refuse(self, where: str, ts: float) -> ValueError:
        def day(t: float) -> str:
            return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

        return ValueError(
            f"{where} has time {ts!r}, outside the window this server accepts "
            f"(between {day(self.earliest)} and {day(self.latest)}: TPUWATCH_INGEST_MAX_AGE_DAYS, "
            "TPUWATCH_INGEST_MAX_AHEAD_SECONDS); check the sending host's clock"
        )


class Batch(BaseModel):
    model_config = ConfigDict(extra="ignore")

    v: int = 1
    stream: Text(64)
    seq: Int64
    part: Annotated[str, Field(max_length=32, pattern=r"^[01]*$")] = ""
    run: RunInfo
    sent_at: Time | None = None
    steps: list[StepRow] = Field(default_factory=list)
    events: list[EventRow] = Field(default_factory=list)
    metrics: list[MetricRow] = Field(default_factory=list)
    logs: list[LogRow] = Field(default_factory=list)
    dropped: Int64 = 0
    # A merged batch (several consecutive batches of the stream in one request): each one's
    # ``[seq, steps, events, metrics, logs]``, in order. Each key is claimed on its own and only the
    # rows of batches not stored before are stored (app/ingest/service.py).
    records: Annotated[list[tuple[Int64, Int32, Int32, Int32, Int32]], Field(max_length=50_000)] | None = None

    @property
    def size(self) -> int:
        return len(self.steps) + len(self.events) + len(self.metrics) + len(self.logs)

    @model_validator(mode="after")
    def _records_add_up(self) -> Batch:
        if self.records is None:
            return self
        if self.part:
            raise ValueError("a merged batch (records) cannot be a part of a split batch")
        if not self.records or self.records[0][0] != self.seq:
            raise ValueError("records: the first record's seq must be the batch's seq")
        if len({r[0] for r in self.records}) != len(self.records):
            raise ValueError("records: a seq comes twice")
        for i, (name, rows) in enumerate(
            (("steps", self.steps), ("events", self.events), ("metrics", self.metrics), ("logs", self.logs)),
            start=1,
        ):
            if sum(r[i] for r in self.records) != len(rows):
                raise ValueError(f"records: their {name} counts do not add up to the batch's {len(rows)}")
        return self

    def record_batches(self) -> list[Batch]:
        """A merged batch as the batches it was merged from (itself when it is not merged); the
        stream's running count of dropped events goes with the last."""
        if not self.records:
            return [self]
        out, at = [], [0, 0, 0, 0]
        names = ("steps", "events", "metrics", "logs")
        last = len(self.records) - 1
        for n, (seq, *counts) in enumerate(self.records):
            rows = {k: getattr(self, k)[a : a + c] for k, a, c in zip(names, at, counts, strict=True)}
            dropped = self.dropped if n == last else 0
            out.append(self.model_copy(update={"seq": seq, "records": None, "dropped": dropped, **rows}))
            at = [a + c for a, c in zip(at, counts, strict=True)]
        return out

    @model_validator(mode="after")
    def _within_window(self, info: ValidationInfo) -> Batch:
        window: TimeWindow | None = (info.context or {}).get("window")
        if window is None:
            return self
        lo, hi = window
        if self.sent_at is not None and not lo <= self.sent_at <= hi:
            raise window.refuse("sent_at", self.sent_at)
        for name, rows, col in (
            ("steps", self.steps, 1),
            ("events", self.events, 0),
            ("metrics", self.metrics, 0),
            ("logs", self.logs, 0),
        ):
            for i, row in enumerate(rows):
                if not lo <= row[col] <= hi:
                    raise window.refuse(f"{name}[{i}]", row[col])
        return self


BatchAdapter = TypeAdapter(Batch)


class IngestResult(BaseModel):
    job_id: int
    stored: int = Field(description="events stored by this request (0 for a redelivered batch)")
    duplicate: bool = False
    detail: str = "stored"
