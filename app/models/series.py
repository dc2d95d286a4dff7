"""The large tables: raw steps and metric samples, and the step rollups that keep long runs fast
to draw."""

from __future__ import annotations

from sqlalchemy import (
    REAL,
    BigInteger,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from tpuwatch.server.db import Base, BigId


class Step(Base):
    """The large table: one row per training step per host, written in batches."""

    __tablename__ = "steps"
    __table_args__ = (Index("ix_steps_job_host_step", "job_id", "host_index", "step"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    host_index: Mapped[int] = mapped_column(Integer)
    step: Mapped[int] = mapped_column(BigInteger)
    ts: Mapped[float] = mapped_column(Float)
    duration: Mapped[float] = mapped_column(Float)
    input_wait: Mapped[float] = mapped_column(Float)


class Metric(Base):
    """A sample of a metric: a device metric (HBM bytes, duty cycle) for one chip of one host, or a
    training metric (loss, learning rate) at a step."""

    __tablename__ = "metrics"
    __table_args__ = (Index("ix_metrics_job_name_ts", "job_id", "name", "ts"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    host_index: Mapped[int] = mapped_column(Integer)
    chip: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(100))
    ts: Mapped[float] = mapped_column(Float)
    value: Mapped[float | None] = mapped_column(Float, nullable=True)  # NaN is stored as NULL
    # The training step of a training metric (``mon.log``, the Keras callback); None for device samples.
    step: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


# Bucket widths in steps, one per level: each level merges 16 buckets of the one below, so a chart
# of any range finds a level with a few thousand buckets. Raw steps may be pruned; rollups stay.
LEVEL_WIDTHS = (16, 256, 4096, 65536)


class StepRollup(Base):
    """Step time and input wait of one host over ``LEVEL_WIDTHS[level]`` consecutive steps.

    Sums (not means) are stored so buckets merge exactly when a later batch adds to them; the
    steps of the slowest and fastest step are kept so a chart draws min/max where they happened.
    """

    __tablename__ = "step_rollups"

    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    # Key order serves "this job, this level, these hosts, this step range" with index seeks.
    level: Mapped[int] = mapped_column(Integer, primary_key=True)
    host_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    bucket: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # first step of the bucket
    n: Mapped[int] = mapped_column(Integer)
    sum_duration: Mapped[float] = mapped_column(Float)
    # The extremes are single step times, 4-byte floats (migration 0601 says why); sums stay 8-byte.
    min_duration: Mapped[float] = mapped_column(REAL)
    max_duration: Mapped[float] = mapped_column(REAL)
    min_step: Mapped[int] = mapped_column(BigInteger)  # the step of min_duration
    max_step: Mapped[int] = mapped_column(BigInteger)  # the step of max_duration
    sum_wait: Mapped[float] = mapped_column(Float)
    max_wait: Mapped[float] = mapped_column(REAL)
    max_wait_step: Mapped[int] = mapped_column(BigInteger)
    last_ts: Mapped[float] = mapped_column(Float)


class LogLine(Base):
    """One line of a job's output on one host (the live log), kept for a retention period."""

    __tablename__ = "log_lines"
    __table_args__ = (
        Index("ix_log_lines_job_id", "job_id", "id"),
        Index("ix_log_lines_job_host_line", "job_id", "host_index", "line_no"),
        Index("ix_log_lines_job_level", "job_id", "level", "id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    host_index: Mapped[int] = mapped_column(Integer)
    line_no: Mapped[int] = mapped_column(BigInteger)  # 1-based, in this host's output
    ts: Mapped[float] = mapped_column(Float)
    stream: Mapped[str] = mapped_column(String(8))
    level: Mapped[str] = mapped_column(String(8))  # error | warning | info
    text: Mapped[str] = mapped_column(Text)
